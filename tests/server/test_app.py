"""The reference server over real HTTP on a loopback port: the spec's behaviour, its error codes."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN, find_forbidden_char
from plantstore_tui.core.plant.models import ApiError
from plantstore_tui.server.app import DEFAULT_MAX_BODY, create_app
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.server.storage import PlantStorage, StorageUnavailable

JSON_TYPE = {"Content-Type": "application/json"}


def bearer(server: BackgroundServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token.get_secret_value()}"}


@pytest.fixture
def client(shared_reference_server: BackgroundServer) -> Iterator[httpx.Client]:
    """A client of the shared server that sends its token."""
    with httpx.Client(
        base_url=shared_reference_server.base_url, headers=bearer(shared_reference_server)
    ) as http:
        yield http


def assert_error(response: httpx.Response, status: int, code: int) -> ApiError:
    """The response is the spec's Error shape, exactly, with this status and code."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "message"}
    error = ApiError.model_validate(body)
    assert error.error == code
    assert error.message
    assert find_forbidden_char(error.message) is None
    return error


def stored_rows(db_path: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(db_path)) as connection:
        return connection.execute("SELECT id, name, tag FROM plants ORDER BY id").fetchall()


def test_a_plant_round_trips_and_is_stored(reference_server: BackgroundServer) -> None:
    plant = {"id": 7, "name": "Monstera deliciosa", "tag": "tropical"}
    response = httpx.post(
        f"{reference_server.base_url}/plants", json=plant, headers=bearer(reference_server)
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"name": "Monstera deliciosa", "tag": "tropical"}
    assert stored_rows(reference_server.db_path) == [(7, "Monstera deliciosa", "tropical")]


def test_an_absent_tag_is_left_out_of_the_answer(client: httpx.Client, plant_id: int) -> None:
    response = client.post("/plants", json={"id": plant_id, "name": "Fern"})
    assert response.status_code == 200
    assert response.json() == {"name": "Fern"}


@pytest.mark.parametrize("tag", ["", "   "])
def test_a_blank_tag_is_refused_in_words_as_a_blank_name_is(
    reference_server: BackgroundServer, tag: str
) -> None:
    # Taken as "no tag", it was answered {"name": "Rose"}: an answer that says the tag sent was
    # lost, and a store holding something else than what was sent.
    plant = {"id": 7, "name": "Rose", "tag": tag}
    response = httpx.post(
        f"{reference_server.base_url}/plants", json=plant, headers=bearer(reference_server)
    )
    error = assert_error(response, 400, 1002)
    assert error.message == (
        "The body is not a NewPlant: tag: Tag is blank: leave it out for a plant without a tag"
    )
    assert stored_rows(reference_server.db_path) == []


def test_non_ascii_names_are_kept(client: httpx.Client, plant_id: int) -> None:
    response = client.post("/plants", json={"id": plant_id, "name": "Ficus 🌿 élastique"})
    assert response.json() == {"name": "Ficus 🌿 élastique"}


@pytest.mark.parametrize("plant_id", [INT64_MAX, INT64_MIN, 0])
def test_ids_at_the_int64_bounds_are_accepted(
    reference_server: BackgroundServer, plant_id: int
) -> None:
    response = httpx.post(
        f"{reference_server.base_url}/plants",
        json={"id": plant_id, "name": "Edge"},
        headers=bearer(reference_server),
    )
    assert response.status_code == 200
    assert stored_rows(reference_server.db_path) == [(plant_id, "Edge", None)]


def test_a_duplicate_id_is_refused_with_its_own_code(
    reference_server: BackgroundServer,
) -> None:
    url = f"{reference_server.base_url}/plants"
    first = httpx.post(url, json={"id": 5, "name": "Aloe"}, headers=bearer(reference_server))
    assert first.status_code == 200
    second = httpx.post(url, json={"id": 5, "name": "Cactus"}, headers=bearer(reference_server))
    error = assert_error(second, 400, 1003)
    assert error.message == "A plant with id 5 already exists"
    assert stored_rows(reference_server.db_path) == [(5, "Aloe", None)]


def test_a_missing_token_is_challenged(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    response = httpx.post(
        f"{shared_reference_server.base_url}/plants", json={"id": plant_id, "name": "Fern"}
    )
    assert_error(response, 401, 1401)
    assert response.headers["www-authenticate"] == 'Bearer realm="plantstore"'


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer wrong",
        "Bearer",
        "",
        "Basic dXNlcjpwYXNz",
        "{token}x",
        "Bearer {token}x",
        "Bearer {token_prefix}",
        "Token {token}",
        b"Bearer \xe9\xff\x80",
    ],
)
def test_a_wrong_token_is_refused_without_a_server_error(
    shared_reference_server: BackgroundServer, plant_id: int, authorization: str | bytes
) -> None:
    token = shared_reference_server.token.get_secret_value()
    if isinstance(authorization, str):
        authorization = authorization.format(token=token, token_prefix=token[:-1]).encode()
    response = httpx.post(
        f"{shared_reference_server.base_url}/plants",
        json={"id": plant_id, "name": "Fern"},
        headers={b"Authorization": authorization},
    )
    assert_error(response, 401, 1401)
    assert response.headers["www-authenticate"].startswith("Bearer ")
    assert token not in response.text


def test_two_authorization_headers_are_refused(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    token = shared_reference_server.token.get_secret_value()
    headers = [("Authorization", f"Bearer {token}"), ("Authorization", "Bearer other")]
    response = httpx.post(
        f"{shared_reference_server.base_url}/plants",
        json={"id": plant_id, "name": "Fern"},
        headers=headers,
    )
    assert_error(response, 401, 1401)


def test_the_bearer_scheme_is_case_insensitive(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    token = shared_reference_server.token.get_secret_value()
    response = httpx.post(
        f"{shared_reference_server.base_url}/plants",
        json={"id": plant_id, "name": "Fern"},
        headers={"Authorization": f"bEaReR {token}"},
    )
    assert response.status_code == 200


def test_the_token_is_checked_before_the_body(shared_reference_server: BackgroundServer) -> None:
    response = httpx.post(
        f"{shared_reference_server.base_url}/plants",
        content=b"x" * (DEFAULT_MAX_BODY + 1),
        headers={"Content-Type": "text/plain"},
    )
    assert_error(response, 401, 1401)


def test_a_body_declared_too_large_is_refused(client: httpx.Client, plant_id: int) -> None:
    body = json.dumps({"id": plant_id, "name": "x" * DEFAULT_MAX_BODY}).encode()
    response = client.post("/plants", content=body, headers=JSON_TYPE)
    error = assert_error(response, 413, 1004)
    assert str(DEFAULT_MAX_BODY) in error.message


def test_a_chunked_body_is_cut_off_at_the_limit(client: httpx.Client, plant_id: int) -> None:
    def chunks() -> Iterator[bytes]:
        yield f'{{"id": {plant_id}, "name": "'.encode()
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}'

    response = client.post("/plants", content=chunks(), headers=JSON_TYPE)
    assert "content-length" not in response.request.headers
    assert_error(response, 413, 1004)


def test_a_body_exactly_at_the_limit_is_read(client: httpx.Client, plant_id: int) -> None:
    plant = json.dumps({"id": plant_id, "name": "Fern"}).encode()
    body = plant + b" " * (DEFAULT_MAX_BODY - len(plant))
    response = client.post("/plants", content=body, headers=JSON_TYPE)
    assert response.status_code == 200


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1"],
)
def test_a_body_that_is_not_json_by_its_media_type_is_refused(
    client: httpx.Client, plant_id: int, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    body = json.dumps({"id": plant_id, "name": "Fern"}).encode()
    response = client.post("/plants", content=body, headers=headers)
    assert_error(response, 415, 1005)


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=UTF-8", 'Application/JSON;charset="utf-8"']
)
def test_json_media_type_parameters_are_understood(
    client: httpx.Client, plant_id: int, content_type: str
) -> None:
    body = json.dumps({"id": plant_id, "name": "Fern"}).encode()
    response = client.post("/plants", content=body, headers={"Content-Type": content_type})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"", "empty"),
        (b"  \n", "empty"),
        (b"{", "not valid JSON"),
        (b'{"id": 1, "name": "x"', "not valid JSON"),
        (b'{"id": 1, "name": "x"} trailing', "not valid JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        ('{"id": 1, "name": "é"}'.encode("utf-16"), "not UTF-8"),
        (b'\xef\xbb\xbf{"id": 1, "name": "x"}', "not valid JSON"),
        (b'{"id": NaN, "name": "x"}', "NaN"),
        (b'{"id": 1, "name": "x", "name": "y"}', '"name" appears twice'),
        (b'{"id": 1, "name": "x\\ud800"}', "lone surrogate (U+D800)"),
        (b'{"id": 1, "name": "x", "\\udfff": 1}', "lone surrogate (U+DFFF)"),
        (b'{"id": 1, "name": "x", "tag": [["\\udc00"]]}', "lone surrogate (U+DC00)"),
        pytest.param(b"[" * 30_000 + b"]" * 30_000, "nested too deeply", id="deep"),
    ],
)
def test_a_body_that_is_not_json_is_refused(client: httpx.Client, body: bytes, words: str) -> None:
    response = client.post("/plants", content=body, headers=JSON_TYPE)
    error = assert_error(response, 400, 1001)
    assert words in error.message


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"id": 1.0, "name": "x"}, "id"),
        ({"id": "5", "name": "x"}, "id"),
        ({"id": True, "name": "x"}, "id"),
        ({"id": None, "name": "x"}, "id"),
        ({"id": 2**63, "name": "x"}, "id"),
        ({"id": -(2**63) - 1, "name": "x"}, "id"),
        pytest.param(b'{"id": 1' + b"0" * 5000 + b', "name": "x"}', "id", id="5000-digits"),
        pytest.param(b'{"id": -1' + b"0" * 5000 + b', "name": "x"}', "id", id="-5000-digits"),
        ({"name": "x"}, "id"),
        ({"id": 1}, "name"),
        ({"id": 1, "name": ""}, "name"),
        ({"id": 1, "name": "   "}, "name"),
        ({"id": 1, "name": 5}, "name"),
        ({"id": 1, "name": "bad\x1b[31mname"}, "name"),
        ({"id": 1, "name": "x", "tag": "\u202etxt"}, "tag"),
        ({"id": 1, "name": "x", "tag": None}, "tag"),
        ({"id": 1, "name": "x", "tag": ["a"]}, "tag"),
        ({"id": 1, "name": "x", "color": "green"}, "color"),
        ([{"id": 1, "name": "x"}], "JSON object"),
        ("plant", "JSON object"),
        (5, "JSON object"),
        (None, "JSON object"),
    ],
)
def test_json_that_is_not_a_new_plant_is_refused_naming_the_field(
    client: httpx.Client, body: Any, field: str
) -> None:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = client.post("/plants", content=content, headers=JSON_TYPE)
    error = assert_error(response, 400, 1002)
    assert field in error.message


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"null", "null"),
        (b"true", "a boolean"),
        (b"7", "a number"),
        (b"99999999999999999999999", "a number"),
        (b"2.5", "a number"),
        (b'"plant"', "a string"),
        (b"[]", "an array"),
    ],
)
def test_a_body_that_is_not_an_object_is_named_by_its_json_type(
    client: httpx.Client, content: bytes, what: str
) -> None:
    response = client.post("/plants", content=content, headers=JSON_TYPE)
    error = assert_error(response, 400, 1002)
    assert error.message == f"The body must be a JSON object (a NewPlant), not {what}"


def test_control_characters_sent_in_a_key_come_back_escaped(client: httpx.Client) -> None:
    response = client.post(
        "/plants", content=b'{"id": 1, "name": "x", "\\u001b[2J\\u009b": 1}', headers=JSON_TYPE
    )
    error = assert_error(response, 400, 1002)
    assert "\\u001b[2J\\u009b" in error.message


def test_a_huge_unknown_key_gives_a_short_message(client: httpx.Client) -> None:
    body = json.dumps({"id": 1, "name": "x", "k" * 60_000: 1}).encode()
    error = assert_error(client.post("/plants", content=body, headers=JSON_TYPE), 400, 1002)
    assert len(error.message) <= 300


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
def test_other_methods_on_plants_are_not_allowed(client: httpx.Client, method: str) -> None:
    response = client.request(method, "/plants")
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    if method != "HEAD":
        assert_error(response, 405, 1405)


@pytest.mark.parametrize("path", ["/", "/plants/", "/plants/1", "/plant", "/%1b[2J"])
def test_unknown_paths_are_not_found(client: httpx.Client, path: str) -> None:
    assert_error(client.post(path, json={"id": 1, "name": "x"}), 404, 1404)


def test_the_openapi_document_describes_the_spec(client: httpx.Client) -> None:
    response = client.get("/openapi.json", headers={"Authorization": ""})
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.0.")
    assert document["info"]["version"] == "1.0.0"
    assert document["info"]["license"]["name"] == "MIT"
    assert list(document["paths"]) == ["/plants"]
    assert list(document["paths"]["/plants"]) == ["post"]
    assert document["security"] == [{"bearerAuth": []}]
    assert document["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
    }
    schemas = document["components"]["schemas"]
    assert schemas["NewPlant"]["required"] == ["name", "id"]
    assert schemas["NewPlant"]["properties"]["id"]["format"] == "int64"
    assert schemas["Plant"]["required"] == ["name"]
    assert schemas["Error"]["required"] == ["error", "message"]
    assert schemas["Error"]["properties"]["error"]["format"] == "int32"


def test_plants_survive_a_restart(tmp_path: Path) -> None:
    db_path = tmp_path / "plants.sqlite3"
    with BackgroundServer(token=SecretStr("first-token"), db_path=db_path) as first:
        response = httpx.post(
            f"{first.base_url}/plants", json={"id": 1, "name": "Aloe"}, headers=bearer(first)
        )
        assert response.status_code == 200
    with BackgroundServer(token=SecretStr("second-token"), db_path=db_path) as second:
        url = f"{second.base_url}/plants"
        again = httpx.post(url, json={"id": 1, "name": "Aloe"}, headers=bearer(second))
        assert_error(again, 400, 1003)
        other = httpx.post(url, json={"id": 2, "name": "Basil"}, headers=bearer(second))
        assert other.status_code == 200
    assert stored_rows(db_path) == [(1, "Aloe", None), (2, "Basil", None)]


async def test_concurrent_posts_never_lose_or_duplicate_a_plant(
    reference_server: BackgroundServer,
) -> None:
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(
        base_url=reference_server.base_url, headers=bearer(reference_server), limits=limits
    ) as http:
        distinct = [http.post("/plants", json={"id": n, "name": f"p{n}"}) for n in range(50)]
        same = [http.post("/plants", json={"id": 999, "name": f"s{n}"}) for n in range(20)]
        responses = await asyncio.gather(*distinct, *same)
    assert all(response.status_code == 200 for response in responses[:50])
    contested = responses[50:]
    winners = [response for response in contested if response.status_code == 200]
    assert len(winners) == 1
    for loser in contested:
        if loser is not winners[0]:
            assert_error(loser, 400, 1003)
    rows = stored_rows(reference_server.db_path)
    assert [row[0] for row in rows] == [*range(50), 999]
    assert rows[-1][1] == winners[0].json()["name"]


def test_a_database_that_fails_gives_503_not_500(reference_server: BackgroundServer) -> None:
    with closing(sqlite3.connect(reference_server.db_path)) as connection:
        connection.execute("DROP TABLE plants")
    response = httpx.post(
        f"{reference_server.base_url}/plants",
        json={"id": 1, "name": "Fern"},
        headers=bearer(reference_server),
    )
    error = assert_error(response, 503, 1503)
    assert "not stored" in error.message


async def test_a_bug_gives_500_in_the_error_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: PlantStorage, plant: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(PlantStorage, "add", broken)
    app = create_app(db_path=tmp_path / "plants.sqlite3", token=SecretStr("token"))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://server") as http:
        response = await http.post(
            "/plants", json={"id": 1, "name": "x"}, headers={"Authorization": "Bearer token"}
        )
    assert_error(response, 500, 1500)


def test_an_empty_token_is_refused_at_creation(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        create_app(db_path=tmp_path / "plants.sqlite3", token=SecretStr(""))


def test_a_database_that_cannot_be_opened_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(StorageUnavailable, match="cannot use"):
        create_app(db_path=tmp_path / "missing" / "plants.sqlite3", token=SecretStr("t"))
    (tmp_path / "not-a-db").write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(OSError, match="not a database"):
        PlantStorage(tmp_path / "not-a-db")


def test_a_server_without_a_start_has_no_base_url(tmp_path: Path) -> None:
    server = BackgroundServer(token=SecretStr("t"), db_path=tmp_path / "plants.sqlite3")
    with pytest.raises(RuntimeError, match="not been started"):
        _ = server.base_url
    server.stop()


def test_a_stopped_server_refuses_connections(tmp_path: Path) -> None:
    with BackgroundServer(token=SecretStr("t"), db_path=tmp_path / "plants.sqlite3") as server:
        base_url = server.base_url
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"{base_url}/plants", json={"id": 1, "name": "x"})


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_run_server_prints_its_url_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    script = (
        "import sys; from pathlib import Path; from pydantic import SecretStr\n"
        "from plantstore_tui.server.app import create_app\n"
        "from plantstore_tui.server.runner import listen, run_server\n"
        "app = create_app(db_path=Path(sys.argv[1]), token=SecretStr('token'))\n"
        "run_server(app, listen('127.0.0.1', 0))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "plants.sqlite3")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        first_line = process.stdout.readline()
        assert first_line.startswith("Plant Store listening on http://127.0.0.1:")
        base_url = first_line.split()[-1]
        response = httpx.post(
            f"{base_url}/plants",
            json={"id": 1, "name": "Fern"},
            headers={"Authorization": "Bearer token"},
        )
        assert response.status_code == 200
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=10)
    assert process.returncode == 0, stderr
    assert "Plant Store stopped" in stdout
    assert "Traceback" not in stderr
    assert '"POST /plants HTTP/1.1" 200' in stdout
