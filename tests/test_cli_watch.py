"""`ingest --watch` as a user runs it: a process that follows edits until Ctrl-C."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from support.pipeline import STRUCTURE
from typer.testing import CliRunner

from policy_assistant.cli.app import app
from policy_assistant.index import open_index
from policy_assistant.ingest.events import Changes
from policy_assistant.ingest.pipeline import ingest

pytestmark = pytest.mark.slow  # watch tests: make test-slow, make check and CI run them

WATCH = """
import signal, sys
# As a terminal's foreground job: Ctrl-C raises, even when the test runs as a background job.
signal.signal(signal.SIGINT, signal.default_int_handler)
from policy_assistant.cli.app import main
sys.argv = ["policy-assistant", "ingest", *sys.argv[1:]]
main()
"""


class Watching:
    """An `ingest --watch` process, read line by line."""

    def __init__(self, corpus: Path, index: Path, *flags: str) -> None:
        command = [sys.executable, "-c", textwrap.dedent(WATCH), str(corpus), "--index"]
        self.process = subprocess.Popen(
            [*command, str(index), "--watch", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            text=True,
        )
        self.selector = selectors.DefaultSelector()
        assert self.process.stdout is not None and self.process.stderr is not None
        self.selector.register(self.process.stdout, selectors.EVENT_READ, "out")
        self.selector.register(self.process.stderr, selectors.EVENT_READ, "err")
        self.lines: dict[str, list[str]] = {"out": [], "err": []}

    def wait_for(self, stream: str, text: str, seconds: float = 60) -> str:
        """Return the first line on stream (out or err) holding text, read as it comes."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = [line for line in self.lines[stream] if text in line]
            if found:
                self.lines[stream].remove(found[0])
                return found[0]
            for key, _ in self.selector.select(timeout=0.1):
                line = key.fileobj.readline()  # type: ignore[union-attr]
                if line:
                    self.lines[key.data].append(line)
        self.stop()
        raise AssertionError(f"no {text!r} on std{stream}: {self.lines}")

    def stop(self, how: signal.Signals = signal.SIGINT) -> tuple[int, str]:
        """Press Ctrl-C (or send another signal); return the exit code and the rest of stderr."""
        os.killpg(self.process.pid, how)
        try:
            _, rest = self.process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            raise
        return self.process.returncode, "".join(self.lines["err"]) + rest


@pytest.mark.skipif(sys.platform != "linux", reason="process groups and inotify: Linux")
@pytest.mark.parametrize("poll", [False, True], ids=["events", "polling"])
def test_watch_follows_edits_as_ingest_would_and_stops_at_ctrl_c_or_sigterm(
    tmp_path: Path, poll: bool
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    os.environ["POLICY_ASSISTANT_WATCH_POLL"] = "1" if poll else ""
    try:
        watching = Watching(corpus, tmp_path / "w", "--chunker", "structure", "--json")
    finally:
        del os.environ["POLICY_ASSISTANT_WATCH_POLL"]
    first = json.loads(watching.wait_for("out", '"added"'))
    assert first["added"] == ["a.md", "b.md", "staff/c.md"]
    watching.wait_for("err", "watching")
    (corpus / "b.md").write_text("# Mowers\n\nRobot mowers carry a five year warranty.\n")
    changed = json.loads(watching.wait_for("out", '"changed":["b.md"]'))
    assert changed["written"] and changed["chunks"] == 3
    (corpus / "staff" / "c.md").unlink()
    (corpus / "d.md").write_text("# Hoses\n\nGarden hoses carry no warranty.\n")
    second = json.loads(watching.wait_for("out", '"removed":["staff/c.md"]'))
    if not second["added"]:  # the two edits fell into two rounds
        second = json.loads(watching.wait_for("out", '"added":["d.md"]'))
    code, stderr = watching.stop(signal.SIGTERM if poll else signal.SIGINT)  # a service's stop
    assert code == 0, stderr
    assert "stopped watching" in stderr and "Traceback" not in stderr
    ingest(corpus, tmp_path / "i", STRUCTURE)  # the truth: ingest of the corpus as it is now
    with open_index(tmp_path / "w") as w, open_index(tmp_path / "i") as i:
        assert sorted(c.id for c in w.chunks()) == sorted(c.id for c in i.chunks())
        assert len(w.chunks()) == 3  # a.md, the new b.md, d.md


def test_watch_refuses_a_file_and_strict(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    runner = CliRunner()
    done = runner.invoke(app, ["ingest", str(corpus / "a.md"), "--index", "i", "--watch"])
    assert done.exit_code == 2 and "--watch watches a folder" in done.output
    done = runner.invoke(app, ["ingest", str(corpus), "--watch", "--strict"])
    assert done.exit_code == 2 and "give one" in done.output
    done = runner.invoke(app, ["ingest", str(tmp_path / "gone"), "--index", "i", "--watch"])
    assert done.exit_code == 2 and "there is none" in done.output
    assert "Traceback" not in done.output


def test_changes_name_sources_a_walk_would_read(tmp_path: Path) -> None:
    changes = Changes(tmp_path / "c", (tmp_path / "c" / "idx",))
    root = str(tmp_path / "c")
    assert changes.source_of(f"{root}/a/b.md") == "a/b.md"
    assert changes.source_of(root) is None
    assert changes.source_of(f"{root}/.git/index") is None
    assert changes.source_of(f"{root}/a/.b.md.swp") is None
    assert changes.source_of(f"{root}/idx/CURRENT") is None
    assert changes.source_of(f"{root}/idxfile.md") == "idxfile.md"
    assert changes.source_of(str(tmp_path / "elsewhere.md")) is None


def test_a_burst_of_events_is_one_take(tmp_path: Path) -> None:
    from watchdog.events import DirModifiedEvent, FileModifiedEvent, FileMovedEvent

    changes = Changes(tmp_path)
    changes.on_any_event(FileModifiedEvent(str(tmp_path / "a.md")))
    changes.on_any_event(FileMovedEvent(str(tmp_path / "b.md"), str(tmp_path / "c.md")))
    changes.on_any_event(DirModifiedEvent(str(tmp_path / "folder")))
    assert changes.take(settle=0.05) == {"a.md", "b.md", "c.md"}
    assert changes.pending == set() and not changes.arrived.is_set()
