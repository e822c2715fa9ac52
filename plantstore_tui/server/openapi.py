"""The OpenAPI 3.0 document the reference server serves at GET /openapi.json.

It describes the spec's one operation, plus the error statuses this server really gives
(the spec leaves them open). The schemathesis tests hold the server to it.
"""

from __future__ import annotations

from typing import Any

from plantstore_tui.core.plant.form import TEXT_PATTERN
from plantstore_tui.server.errors import ERROR_KINDS

_JSON = "application/json"


def _error_response(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {_JSON: {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _codes_of(status: int) -> str:
    return ", ".join(str(kind.code) for kind in ERROR_KINDS if kind.status == status)


def _error_code_list() -> str:
    rows = [f"{kind.code} ({kind.status}): {kind.meaning}" for kind in ERROR_KINDS]
    return "Numeric error indicator. This server's codes:\n\n- " + "\n- ".join(rows)


def openapi_document() -> dict[str, Any]:
    """The document as a JSON-ready dict, written by hand from the spec."""
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Plant Store",
            "description": "A plant store interface: add a plant by sending its JSON description.",
            "version": "1.0.0",
            "license": {"name": "MIT", "url": "https://opensource.org/licenses/MIT"},
        },
        "paths": {
            "/plants": {
                "post": {
                    "operationId": "addPlant",
                    "summary": "Creates a new plant in the store",
                    "requestBody": {
                        "description": "The plant to add",
                        "required": True,
                        "content": {_JSON: {"schema": {"$ref": "#/components/schemas/NewPlant"}}},
                    },
                    "responses": {
                        "200": {
                            "description": "The plant response",
                            "content": {_JSON: {"schema": {"$ref": "#/components/schemas/Plant"}}},
                        },
                        "400": _error_response(
                            f"Unexpected error: the plant was not created (codes {_codes_of(400)})"
                        ),
                        "401": _error_response(
                            "The bearer token is missing or wrong; a WWW-Authenticate header "
                            f"says which (code {_codes_of(401)})"
                        ),
                        "413": _error_response(f"The body is too large (code {_codes_of(413)})"),
                        "415": _error_response(
                            f"The body is not application/json (code {_codes_of(415)})"
                        ),
                        "503": _error_response(
                            "The database is busy or cannot be written; the plant was not "
                            f"created (code {_codes_of(503)})"
                        ),
                    },
                }
            }
        },
        "security": [{"bearerAuth": []}],
        "components": {
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Plant": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {"type": "string", "description": "The name of the plant"},
                        "tag": {
                            "type": "string",
                            "description": "Tag that specifies the type of the plant",
                        },
                    },
                },
                # Every field of Plant plus id, written out flat: with allOf, the
                # additionalProperties this server enforces could not be stated.
                "NewPlant": {
                    "type": "object",
                    "required": ["name", "id"],
                    "additionalProperties": False,
                    "properties": {
                        "name": {
                            "type": "string",
                            "minLength": 1,
                            "pattern": TEXT_PATTERN,
                            "description": (
                                "The name of the plant. This server refuses a blank name and "
                                "control characters (C0, DEL, C1, bidirectional controls), as "
                                "the pattern says."
                            ),
                        },
                        "tag": {
                            "type": "string",
                            "minLength": 1,
                            "pattern": TEXT_PATTERN,
                            "description": (
                                "Tag that specifies the type of the plant. This server refuses "
                                "a blank tag (leave it out instead) and control characters, as "
                                "the pattern says."
                            ),
                        },
                        "id": {
                            "type": "integer",
                            "format": "int64",
                            "description": "Identification number of the plant",
                        },
                    },
                },
                "Error": {
                    "type": "object",
                    "required": ["error", "message"],
                    "properties": {
                        "error": {
                            "type": "integer",
                            "format": "int32",
                            "description": _error_code_list(),
                        },
                        "message": {
                            "type": "string",
                            "description": "Text message describing the error",
                        },
                    },
                },
            },
        },
    }
