"""``kbgym serve`` says where it listens, once the socket is bound (and says nothing when the
port is taken: uvicorn's own error and exit status then stand). Needs uvicorn (the openenv
extra); skipped without it."""

from __future__ import annotations

import socket
import threading
import time

import pytest

pytest.importorskip("uvicorn")

from kbgym.cli.serve import announced_server  # noqa: E402


async def _app(scope, receive, send):  # an ASGI app that answers nothing
    return None


def test_serve_prints_the_bound_address(capsys):
    server = announced_server(_app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    server.should_exit = True
    thread.join(10)
    out = capsys.readouterr().out
    assert out.startswith("kbgym serve: listening on http://127.0.0.1:"), out
    port = int(out.split("127.0.0.1:")[1].split()[0])
    assert port > 0


def test_a_busy_port_prints_no_address(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = announced_server(_app, "127.0.0.1", taken.getsockname()[1])
        with pytest.raises(SystemExit):
            server.run()
    assert "listening on" not in capsys.readouterr().out
