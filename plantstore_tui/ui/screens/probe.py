"""The probe screen (F6, or the palette's "Probe a request"): one request, `POST /plants` or any
method and path typed above the body, exactly as typed, to the deployment plants go to now, and
its answer beside it, read by the spec's rules (`core/http/probe.py`).

A probe is never a plant of the queue and never waits behind it: it goes over a connection of its
own, in a worker, whatever the queue is doing. Each probe is kept in the ledger's history as a
probe (`core/store/probes.py`, in a thread), and "Save as case" appends it to a file of cases
that `check --expect` runs (`core/http/cases.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from plantstore_tui.core.http.cases import CasesError, append_case, case_of, suggested_name
from plantstore_tui.core.http.conformance import status_phrase
from plantstore_tui.core.http.follow import Followed, follow_probe
from plantstore_tui.core.http.probe import (
    SPEC_METHOD,
    SPEC_PATH,
    ProbeAnswer,
    ProbeRequest,
    TokenChoice,
    cancelled_probe,
    parse_header,
    parse_method,
    parse_path,
    send_probe,
)
from plantstore_tui.core.http.probe_again import kept_headers, left_out_words
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.http.wire import shown_bytes
from plantstore_tui.core.plant.form import FormTexts, parse_id
from plantstore_tui.core.plant.outcome import Failed
from plantstore_tui.core.plant.text import shorten, visible
from plantstore_tui.core.store.probes import ProbeEntry, record_probe
from plantstore_tui.ui.keys import key_in_force
from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.screens.confirm import Answer, ConfirmScreen
from plantstore_tui.ui.screens.kept_probes import KeptProbesScreen
from plantstore_tui.ui.widgets.log_entry import body_block
from plantstore_tui.ui.widgets.marked_checkbox import MarkedCheckbox
from plantstore_tui.ui.widgets.timing_bar import TimingBar
from plantstore_tui.ui.widgets.typed_input import TypedInput
from plantstore_tui.ui.widgets.typed_text_area import TypedTextArea

# A blank form's body: the shape of a plant, its values to write. `<id>` and `<name>` are no JSON
# values, so as it stands it is not JSON and no deployment can read a plant from it (a body the
# spec merely refuses, an id as text, would not do: a lenient deployment may store it anyway).
TEMPLATE = '{\n  "id": <id>,\n  "name": <name>\n}'
TOKEN_CHOICES = (
    ("the profile's token", TokenChoice.PROFILE),
    ("no token", TokenChoice.NONE),
    ("a wrong token", TokenChoice.WRONG),
)
DEFAULT_CASES = "cases.toml"
NOTHING_YET = (
    "Ctrl+S sends the request as it stands, whatever the queue is doing; its answer is shown "
    "here. A probe never joins the queue: it is kept in the history as a probe."
)
NO_WIRE_YET = (
    "Once a probe is sent, the request line and headers as they went out and the answer's as "
    "they came back are shown here, with each body's bytes; the token masked."
)
_BOLD = Style(bold=True)
_DIM = Style(dim=True)


def body_of_form(texts: FormTexts) -> str:
    """The form's plant as a probe's body, indented: what is typed, valid or not (an id that is
    not a whole number goes as text); a blank form gives `TEMPLATE`, which creates nothing."""
    if texts.blank:
        return TEMPLATE
    plant_id = parse_id(texts.id)
    value: dict[str, Any] = {
        "id": plant_id if isinstance(plant_id, int) else texts.id,
        "name": texts.name,
    }
    if texts.tag:
        value["tag"] = texts.tag
    return json.dumps(value, indent=2, ensure_ascii=False)


def headers_of(text: str) -> tuple[tuple[str, str], ...]:
    """Each line that is not blank as a header; ValueError with `parse_header`'s words."""
    return tuple(parse_header(line) for line in text.splitlines() if line.strip())


def _pairs(pairs: tuple[tuple[str, str], ...]) -> Text:
    text = Text()
    for name, value in pairs:
        text.append(f"\n{visible(shorten(name))}: ", _DIM)
        text.append(visible(shorten(value, what=name)))
    return text


def answer_text(answer: ProbeAnswer) -> Text:
    """The answer as the screen shows it: the status and the time, the spec's reading, the body
    (pretty when it is JSON, escaped and bounded as the log shows bodies), the headers received
    and sent; when no answer came, why. Nothing from the server is read as markup."""
    text = Text()
    if answer.status is None:
        text.append("No answer", _BOLD)
    else:
        text.append(f"{answer.status} {status_phrase(answer.status)}".rstrip(), _BOLD)
    if answer.elapsed_ms is not None:
        text.append(f"  {answer.elapsed_ms:.1f} ms", _DIM)
    outcome = answer.outcome
    if not answer.answered:
        text.append(f"\n{visible(outcome.headline)}")
        # What to try about the deployment (a probe carried no plant to send again).
        if isinstance(outcome, Failed) and outcome.remedy:
            text.append(f"\n{visible(outcome.remedy)}")
    text.append(f"\n{answer.reading.words}")
    if answer.note is not None:
        text.append(f"\n{answer.note}", _DIM)
    if answer.reading.off_spec:
        text.append("\n")
        text.append(visible("Off spec: " + "; ".join(answer.reading.off_spec)))
    if answer.answered:
        text.append("\n\nBody", _BOLD)
        text.append("\n")
        text.append(body_block(answer.body) if answer.body else Text("(empty)", _DIM))
        text.append("\n\nHeaders received", _BOLD)
        text.append(_pairs(answer.headers))
    text.append("\n\nSent", _BOLD)
    text.append(f"\n{visible(answer.request.method)} {visible(answer.url)}", _DIM)
    text.append(_pairs(answer.sent_headers))
    return text


def wire_text(answer: ProbeAnswer) -> Text:
    """The exchange as it went on the wire: the request line, headers in the order sent and the
    body's bytes; the status line, headers and body as received. Escaped and bounded as the
    answer is; the token was taken out of every name and value (`core/http/wire.py`)."""
    wire = answer.wire
    if wire is None:
        return Text("Nothing went on the wire: the request was not sent.")
    text = Text()
    text.append(visible(wire.request_line), _BOLD)
    text.append(_pairs(wire.request_headers))
    text.append(_bytes(wire.request_body, len(wire.request_body)))
    text.append("\n\n")
    if wire.status_line is None:
        text.append("No answer came.", _BOLD)
        return text
    text.append(visible(wire.status_line), _BOLD)
    text.append(_pairs(wire.answer_headers))
    text.append(_bytes(wire.answer_body, wire.answer_size))
    return text


def _bytes(data: bytes, size: int) -> Text:
    if not size:
        return Text("\n\n(no body)", _DIM)
    return Text(f"\n\n{shown_bytes(data, size)}")


def _keep_left(app: App[Any], target: Target, left: ProbeAnswer) -> None:
    """Keep a probe whose screen was left in flight (in a thread of its own: it blocks)."""

    def warn(problem: str) -> None:
        words = f"The probe left in flight is not kept in the history: {visible(problem)}"
        # Once the app has ended, nobody is left to tell.
        with contextlib.suppress(RuntimeError):
            app.call_from_thread(app.notify, words, title="Not kept", severity="warning")

    record_probe(target, left, warn=warn, source="tui")


class ProbeScreen(OrderedScreen[None]):
    """A request written by hand, sent with Ctrl+S, its answer beside it; Esc back to the form.

    Its keys are applied in order (`OrderedScreen`): F6 and an edit typed in one go, an arrow
    among the characters of a burst, act as typed slowly."""

    CSS_PATH = "../probe.tcss"
    # The body takes the keys (Textual's own focus on opening, not the method above it).
    AUTO_FOCUS = "#probe-body"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back to the form", id="probe.close"),
        Binding("ctrl+s", "send", "Send", id="probe.send"),
        Binding("ctrl+o", "save_case", "Save as case", id="probe.save_case"),
        # Not in the footer, which 80 columns fill: the Wire tab names its key.
        Binding("f8", "toggle_wire", "Wire", show=False, id="probe.wire"),
        Binding("f3", "kept", "Kept probes", id="probe.kept"),
    ]

    def __init__(self, target: Callable[[], Target | None], texts: FormTexts) -> None:
        """`target` tells the deployment plants go to now (None: none yet), read at each Send;
        `texts`, the form's fields, make the first body."""
        super().__init__()
        self._target = target
        self._first_body = body_of_form(texts)
        self.answer: ProbeAnswer | None = None
        """The last answer shown."""
        self.first_answer: ProbeAnswer | None = None
        """The answer to the request as typed (a redirect followed: the first), which Save as
        case keeps."""
        self.sending = False
        """True while a probe is in flight (a second Send is refused meanwhile)."""

    def compose(self) -> ComposeResult:
        """The target above; the request (method and path, body, token, headers, buttons)
        beside the answer."""
        yield Static(id="probe-title")
        with Horizontal(id="probe-panes"):
            with Vertical(id="probe-request"):
                with Horizontal(id="probe-line"):
                    method = TypedInput(SPEC_METHOD, placeholder="method", id="probe-method")
                    path = TypedInput(SPEC_PATH, placeholder="/path?query", id="probe-path")
                    method.compact = path.compact = True
                    yield method
                    yield path
                body = TypedTextArea.code_editor(
                    self._first_body, language="json", tab_behavior="focus", id="probe-body"
                )
                body.border_title = "Body, sent as typed"
                # Textual's editor keys: F7 selects all (Ctrl+A goes to the line's start).
                body.border_subtitle = "F7 selects all"
                yield body
                with Horizontal(id="probe-token-row"):
                    yield Label("Token", id="probe-token-label")
                    yield Select(
                        TOKEN_CHOICES,
                        value=TokenChoice.PROFILE,
                        allow_blank=False,
                        compact=True,
                        id="probe-token",
                    )
                headers = TypedTextArea(
                    tab_behavior="focus", placeholder="Name: value, one a line", id="probe-headers"
                )
                headers.border_title = "Headers"
                yield headers
                with Horizontal(id="probe-buttons"):
                    yield Button("Send", variant="primary", compact=True, id="probe-send")
                    yield Button("Save as case", compact=True, id="probe-save")
                    # Off: a redirect is shown as the answer, as every send of the client does.
                    yield MarkedCheckbox("Follow", value=False, id="probe-follow")
            with TabbedContent(id="probe-answer-tabs", initial="probe-answer-tab"):
                with TabPane("Answer", id="probe-answer-tab"), VerticalScroll(id="probe-answer"):
                    yield TimingBar(id="probe-timing")
                    yield Static(Text(NOTHING_YET), id="probe-answer-text")
                wire = f"Wire {key_in_force(self.app, 'probe.wire').split(' / ')[0]}"
                with TabPane(wire, id="probe-wire-tab"), VerticalScroll(id="probe-wire"):
                    yield Static(Text(NO_WIRE_YET), id="probe-wire-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        """Name the target; the body takes the keys."""
        self._show_where(self._target())
        self.query_one("#probe-body", TypedTextArea).focus()

    def _show_where(self, target: Target | None) -> None:
        if target is None:
            words = "Probe: no deployment yet (F2 for profiles)"
        else:
            proxy = None if target.proxy is None else target.proxy.url
            # In capitals, as it is sent.
            method = self.query_one("#probe-method", TypedInput).value.strip().upper()
            path = self.query_one("#probe-path", TypedInput).value.strip()
            where = f"{target.base_url.rstrip('/')}{path}{through_words(proxy)}"
            words = f"Probe {visible(method)} {visible(where)}"
        self.query_one("#probe-title", Static).update(Text(words))

    @on(Input.Changed, "#probe-method")
    @on(Input.Changed, "#probe-path")
    def _line_changed(self) -> None:
        # The title says where the probe goes as the method and path are typed.
        self._show_where(self._target())

    def action_kept(self) -> None:
        """List the probes kept, to open one here."""
        # The keys typed from now on wait until the probe chosen is in the fields.
        self.hold_keys()
        self.app.push_screen(KeptProbesScreen(), self.open_kept)

    def open_kept(self, probe: ProbeEntry | None) -> None:
        """Put a kept probe's request in the fields as it was sent, to change and send again
        (a new probe: the one kept stays as it was); an Authorization kept masked is left out,
        and said. Then the keys held meanwhile are applied."""
        try:
            if probe is not None:
                self._fill(probe)
        finally:
            self.take_keys()

    def _fill(self, probe: ProbeEntry) -> None:
        try:
            body = probe.body.decode("utf-8")
        except UnicodeDecodeError:
            self._say(
                f"{probe.label} is not opened: its body ({len(probe.body):,} bytes) is not UTF-8 "
                f"text, which the body's field cannot hold. plantstore-tui probe --again "
                f"{probe.label} sends it again as it was."
            )
            return
        headers, masked = kept_headers(probe.request)
        self.query_one("#probe-method", TypedInput).value = probe.method
        self.query_one("#probe-path", TypedInput).value = probe.path
        self.query_one("#probe-body", TypedTextArea).load_text(body)
        self.query_one("#probe-token", Select).value = probe.token
        lines = "".join(f"{name}: {value}\n" for name, value in headers)
        self.query_one("#probe-headers", TypedTextArea).load_text(lines)
        status = "no answer" if probe.status is None else str(probe.status)
        sent = f"{probe.time.astimezone():%Y-%m-%d %H:%M:%S}"
        words = [
            f"{probe.label} ({visible(probe.request.line)}, {status}, sent {sent} to "
            f"{visible(probe.base_url)}) is in the fields as it was sent. Change what you will: "
            f"{key_in_force(self.app, 'probe.send')} sends it as a new probe, and "
            f"{probe.label} stays as it was."
        ]
        if masked is not None:
            words.append(left_out_words(probe.label, visible(masked), probe.token))
        target = self._target()
        if target is not None and target.base_url != probe.base_url:
            words.append(f"It goes to {visible(target.base_url)}, where plants go now.")
        self._say("\n\n".join(words))
        self.set_focus(self.query_one("#probe-body", TypedTextArea))

    def _say(self, words: str) -> None:
        self.query_one("#probe-answer-text", Static).update(Text(words))

    @on(Button.Pressed, "#probe-send")
    def action_send(self) -> None:
        """Send the request as it stands to the deployment plants go to now."""
        if self.sending:
            self.notify(
                "A probe is in flight: send again once its answer is shown.",
                title="Not sent",
                severity="warning",
            )
            return
        target = self._target()
        self._show_where(target)
        if target is None:
            self._say(
                "Nothing was sent: there is no deployment to probe yet. Choose a profile "
                "with F2, or wait until the status line shows one connected."
            )
            return
        try:
            method = parse_method(self.query_one("#probe-method", TypedInput).value)
            path = parse_path(self.query_one("#probe-path", TypedInput).value)
            headers = headers_of(self.query_one("#probe-headers", TypedTextArea).text)
        except ValueError as exc:
            self._say(f"Nothing was sent: {visible(str(exc))}.")
            return
        choice = self.query_one("#probe-token", Select).value
        token = choice if isinstance(choice, TokenChoice) else TokenChoice.PROFILE
        body = self.query_one("#probe-body", TypedTextArea).text.encode("utf-8")
        request = ProbeRequest(body, token, headers, method, path)
        if target.protected and request.may_create:
            # As `probe` asks on the command line: this request could create a plant there, or
            # change the deployment.
            question = _protected_question(target, request)
            self.app.push_screen(question, self._confirmed(target, request))
            return
        self._go(target, request)

    def _confirmed(self, target: Target, request: ProbeRequest) -> Callable[[Answer | None], None]:
        def answered(answer: Answer | None) -> None:
            if answer is not None and answer.confirmed:
                self._go(target, request)
            else:
                self._say("Nothing was sent: the probe to the protected profile was cancelled.")

        return answered

    def _go(self, target: Target, request: ProbeRequest) -> None:
        self.sending = True
        self._say("Sending…")
        self._send(target, request)

    @work(exclusive=True, group="probe", exit_on_error=False)
    async def _send(self, target: Target, request: ProbeRequest) -> None:
        started, clock = datetime.now(UTC), time.perf_counter()
        try:
            if self.query_one("#probe-follow", MarkedCheckbox).value:
                followed = await follow_probe(target, request)
            else:
                followed = Followed((await send_probe(target, request),))
        except asyncio.CancelledError:
            # The screen was left (Esc) with the probe in flight: it may have reached the
            # deployment, so it is kept, of unknown fate, by a thread that outlives the screen.
            elapsed = (time.perf_counter() - clock) * 1000
            left = cancelled_probe(target, request, started, elapsed)
            keep = threading.Thread(target=_keep_left, args=(self.app, target, left), name="probe")
            keep.start()
            raise
        answer = followed.last
        try:
            self.answer = answer
            # Save as case keeps the request as typed, with what it got (check --expect
            # follows no redirect).
            self.first_answer = followed.answers[0]
            shown = Text("\n").join(Text(visible(line)) for line in followed.words())
            if shown:
                shown.append("\n\n")
            self.query_one("#probe-answer-text", Static).update(shown + answer_text(answer))
            self.query_one("#probe-timing", TimingBar).show(answer.timings)
            self.query_one("#probe-wire-text", Static).update(wire_text(answer))
            for pane in ("#probe-answer", "#probe-wire"):
                self.query_one(pane, VerticalScroll).scroll_home(animate=False)
        finally:
            self.sending = False
        # Kept in the history as every probe is, each request that went out; the ledger is
        # written off the event loop.
        problems: list[str] = []
        for sent in followed.answers:
            await asyncio.to_thread(record_probe, target, sent, warn=problems.append, source="tui")
        for problem in problems:
            self.notify(
                f"This probe is not kept in the history: {visible(problem)}",
                title="Not kept",
                severity="warning",
            )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A probe that stopped on a bug says so, in words."""
        if event.worker.group == "probe" and event.state == WorkerState.ERROR:
            name = type(event.worker.error).__name__
            self._say(f"The probe stopped on an unexpected error: {name}.")

    @on(Button.Pressed, "#probe-save")
    def action_save_case(self) -> None:
        """Append the request last sent, with the status it got, to a file of cases."""
        if self.sending:
            self.notify(
                "A probe is in flight: save it as a case once its answer is shown.",
                title="Not saved",
                severity="warning",
            )
            return
        answer = self.first_answer
        if answer is None:
            self.notify(
                "Send the probe first: a case keeps the request with the status it got.",
                title="Nothing to save",
                severity="warning",
            )
            return
        try:
            case_of("", answer)
        except CasesError as exc:
            self.notify(visible(str(exc)), title="Nothing to save", severity="warning")
            return
        self.app.push_screen(SaveCaseScreen(answer), self._saved)

    def _saved(self, words: str | None) -> None:
        if words is not None:
            self.notify(words, title="Case saved")

    def action_toggle_wire(self) -> None:
        """Show the wire, or the answer again."""
        tabs = self.query_one("#probe-answer-tabs", TabbedContent)
        tabs.active = "probe-answer-tab" if tabs.active == "probe-wire-tab" else "probe-wire-tab"

    def action_close(self) -> None:
        """Back to the form."""
        self.dismiss()


def _protected_question(target: Target, request: ProbeRequest) -> ConfirmScreen:
    subject = Text()
    subject.append(visible(target.profile or "(no profile)"), style="bold")
    subject.append(f"\n{visible(target.base_url)}")
    harm = (
        "this body, a JSON object sent with its token, may create a plant there"
        if request.in_spec
        else f"this request, {visible(request.method)} sent with its token, may change the "
        "deployment"
    )
    return ConfirmScreen(
        "Send this probe to a protected profile?",
        subject,
        f"This profile is marked protected, and {harm}.",
        yes="Send",
        no="Cancel",
        danger=True,
    )


class SaveCaseScreen(ModalScreen[str | None], OrderedScreen[str | None]):
    """Asks for the file of cases and the case's name, and appends the case; dismissed with the
    words saying where it went (None: not saved). Its keys are applied in order."""

    CSS_PATH = "../probe.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save_case.cancel")
    ]

    def __init__(self, answer: ProbeAnswer) -> None:
        super().__init__()
        self._answer = answer
        self._name = suggested_name(answer)

    def compose(self) -> ComposeResult:
        """The file, the name, Save; what went wrong under them."""
        with Vertical(id="case-panel") as panel:
            panel.border_title = "Save as case"
            panel.border_subtitle = "Esc cancels"
            yield Label("File of cases (made if missing)")
            yield TypedInput(DEFAULT_CASES, id="case-path")
            yield Label("Name of the case")
            yield TypedInput(self._name, id="case-name")
            yield Static(id="case-problem")
            yield Button("Save", variant="primary", compact=True, id="case-save")

    def on_mount(self) -> None:
        """The name takes the keys: the file is most often the one offered."""
        self.query_one("#case-name", TypedInput).focus()

    @on(Input.Submitted, "#case-path")
    def _path_given(self) -> None:
        self.query_one("#case-name", TypedInput).focus()

    @on(Input.Submitted, "#case-name")
    @on(Button.Pressed, "#case-save")
    def _save_pressed(self) -> None:
        path = self.query_one("#case-path", TypedInput).value.strip()
        name = self.query_one("#case-name", TypedInput).value.strip()
        if not path or not name:
            self._problem("Give both the file and the case's name.")
            return
        self._save(Path(path).expanduser(), name)

    @work(thread=True, exclusive=True, group="save-case", exit_on_error=False)
    def _save(self, path: Path, name: str) -> None:
        try:
            append_case(path, case_of(name, self._answer))
        except CasesError as exc:
            self.app.call_from_thread(self._problem, f"Not saved: {visible(str(exc))}")
            return
        words = f"The probe is case {visible(name)!r} in {visible(str(path))}."
        self.app.call_from_thread(self.dismiss, words)

    def _problem(self, words: str) -> None:
        self.query_one("#case-problem", Static).update(Text(words))

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)
