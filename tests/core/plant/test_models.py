"""The spec's shapes: a NewPlant is exactly what is sent; answers are checked, never guessed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from plantstore_tui.core.plant.models import (
    ApiError,
    NewPlant,
    Plant,
    describe_validation_error,
)

Model = type[Plant] | type[ApiError] | type[NewPlant]


def read(model: Model, body: bytes | str) -> Plant | ApiError | NewPlant | str:
    """The model read from JSON, or the one line naming its problems."""
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        return describe_validation_error(exc)


def named_problem(problem: str) -> bool:
    """A description reads `path: words`; a path may be any key sent, even "", so no more."""
    return bool(problem.partition(": ")[2])


def problem_of(model: Model, body: bytes | str) -> str:
    problem = read(model, body)
    assert isinstance(problem, str)
    return problem


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
plant_like = st.fixed_dictionaries(
    {},
    optional={"name": json_values, "tag": json_values, "id": json_values, "extra": json_values},
)
error_like = st.fixed_dictionaries(
    {}, optional={"error": json_values | st.integers(), "message": json_values}
)


class TestNewPlant:
    def test_the_body_holds_only_the_spec_fields(self) -> None:
        assert NewPlant(id=7, name="Fern", tag="indoor").to_body() == {
            "id": 7,
            "name": "Fern",
            "tag": "indoor",
        }

    @pytest.mark.parametrize("tag", [None, "", "   "])
    def test_an_absent_or_blank_tag_is_left_out_never_sent_empty_or_null(
        self, tag: str | None
    ) -> None:
        plant = NewPlant(id=7, name="Fern", tag=tag)
        assert plant.tag is None
        assert plant.to_body() == {"id": 7, "name": "Fern"}
        assert "tag" not in json.dumps(plant.to_body())

    def test_unknown_fields_are_refused_so_they_are_never_sent(self) -> None:
        assert problem_of(NewPlant, '{"id": 1, "name": "x", "colour": "green"}') == (
            "colour: Extra inputs are not permitted"
        )

    @pytest.mark.parametrize(
        ("body", "problem"),
        [
            ('{"id": "7", "name": "x"}', "id: Input should be a valid integer"),
            ('{"id": 7.0, "name": "x"}', "id: Input should be a valid integer"),
            ('{"id": true, "name": "x"}', "id: Input should be a valid integer"),
            ('{"id": 9223372036854775808, "name": "x"}', "id: Input should be less than or"),
            ('{"id": 1, "name": ""}', "name: String should have at least 1 character"),
            ('{"id": 1, "name": "  "}', "name: Name is required"),
            ('{"id": 1, "name": "a\\u001bb"}', "name: Name has a control character (U+001B)"),
            ('{"id": 1, "name": "x", "tag": "\\u202e"}', "tag: Tag has a bidirectional control"),
            ('{"id": 1, "name": "x", "tag": 5}', "tag: Input should be a valid string"),
            ('{"name": "x"}', "id: Field required"),
            ("[1]", "body: Input should be an object"),
        ],
    )
    def test_a_bad_new_plant_is_named_by_field_path(self, body: str, problem: str) -> None:
        assert problem_of(NewPlant, body).startswith(problem)

    def test_int64_edges_are_valid(self) -> None:
        assert NewPlant(id=-(2**63), name="x").id == -(2**63)
        assert NewPlant(id=2**63 - 1, name="x").id == 2**63 - 1

    @given(st.dictionaries(st.text(max_size=5), json_values, max_size=4) | plant_like)
    def test_any_json_object_validates_or_names_its_problems(self, value: dict[str, Any]) -> None:
        plant = read(NewPlant, json.dumps(value))
        if isinstance(plant, str):
            assert named_problem(plant)
        else:
            assert isinstance(plant, NewPlant)
            assert set(plant.to_body()) <= {"id", "name", "tag"}


class TestPlant:
    def test_a_plant_is_read_and_extra_fields_are_kept(self) -> None:
        plant = Plant.model_validate_json('{"name": "Fern", "tag": "indoor", "id": 7}')
        assert (plant.name, plant.tag) == ("Fern", "indoor")
        assert plant.model_dump() == {"name": "Fern", "tag": "indoor", "id": 7}

    @pytest.mark.parametrize(
        ("body", "problem"),
        [
            ("{}", "name: Field required"),
            ('{"nom": "Fern"}', "name: Field required"),
            ('{"name": 5}', "name: Input should be a valid string"),
            ('{"name": ["Fern"]}', "name: Input should be a valid string"),
            ('{"name": "Fern", "tag": 5}', "tag: Input should be a valid string"),
            ("[]", "body: Input should be an object"),
            ('"Fern"', "body: Input should be an object"),
            ("", "body: Invalid JSON"),
            ("<html>502</html>", "body: Invalid JSON"),
            ("[" * 10_000, "body: "),
        ],
    )
    def test_a_wrong_shape_is_named_by_field_path(self, body: str, problem: str) -> None:
        assert problem_of(Plant, body).startswith(problem)

    @given(st.one_of(plant_like, json_values))
    def test_any_json_reads_as_a_plant_or_names_its_problems(self, value: Any) -> None:
        plant = read(Plant, json.dumps(value))
        if isinstance(plant, str):
            assert named_problem(plant)
        else:
            assert isinstance(plant, Plant)
            assert isinstance(plant.name, str)
            json.dumps(plant.model_dump())

    @given(st.binary(max_size=200))
    def test_any_bytes_read_as_a_plant_or_name_their_problems(self, body: bytes) -> None:
        plant = read(Plant, body)
        assert isinstance(plant, Plant | str)
        assert isinstance(plant, Plant) or named_problem(plant)


class TestApiError:
    def test_an_error_is_read(self) -> None:
        error = ApiError.model_validate_json('{"error": 400, "message": "id taken"}')
        assert (error.error, error.message) == (400, "id taken")

    @pytest.mark.parametrize(
        ("body", "problem"),
        [
            ('{"error": "12", "message": "m"}', "error: Input should be a valid integer"),
            (
                '{"error": 1099511627776, "message": "m"}',
                "error: Input should be less than or equal to 2147483647",
            ),
            (
                '{"error": -2147483649, "message": "m"}',
                "error: Input should be greater than or equal to -2147483648",
            ),
            ('{"error": 1.5, "message": "m"}', "error: Input should be a valid integer"),
            ('{"error": true, "message": "m"}', "error: Input should be a valid integer"),
            ('{"error": 1}', "message: Field required"),
            ('{"error": 1, "message": 2}', "message: Input should be a valid string"),
            (
                '{"message": null}',
                "error: Field required; message: Input should be a valid string",
            ),
        ],
    )
    def test_wrong_types_are_named_by_field_path(self, body: str, problem: str) -> None:
        assert problem_of(ApiError, body) == problem

    @given(error_like)
    def test_any_error_like_object_reads_or_names_its_problems(self, value: Any) -> None:
        error = read(ApiError, json.dumps(value))
        if isinstance(error, str):
            assert error.startswith(("error:", "message:"))
            assert named_problem(error)
        else:
            assert isinstance(error, ApiError)
            assert -(2**31) <= error.error < 2**31
            assert isinstance(error.message, str)
