"""The Textual front end: a thin shell over the core."""
