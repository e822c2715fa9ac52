"""What an operator types and what came of it: form parsing, the spec's models, outcomes and
safe text. It imports nothing else of the core."""
