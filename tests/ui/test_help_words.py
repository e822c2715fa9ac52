"""What F1 says is true of the product as shipped: where a profile's token is kept."""

from __future__ import annotations

from snapshot_apps.canned import canned_app
from snapshot_apps.support import settled, until
from textual.widgets import Static

from plantstore_tui.ui.screens.help import HelpScreen


async def test_f1_says_where_a_profiles_token_is_kept() -> None:
    app = canned_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        said = " ".join(str(static.render()) for static in app.screen.query(Static).results(Static))
        said = " ".join(said.split())
        # Profiles do save it: in the keyring, or else in a credentials file only you can read.
        assert "The token is never saved" not in said
        assert "keyring" in said
        assert "credentials file" in said
        assert "$PLANTSTORE_TOKEN is never saved" in said
