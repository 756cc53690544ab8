"""Over stdio every request gets a reply, as JSON-RPC 2.0 says (issue 19, item 12): a line that is
not JSON, ``params`` that are an array or a scalar, an integer past 4,300 digits, a message that is
not a request. The session goes on after each, and the run it records replays."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")

from silo_gym.replay import replay_run  # noqa: E402

from .stdio_client import RawStdio  # noqa: E402

BIG = "9" * 5000

#: (what, the line, the reply's id, its error code; None: a result)
BAD_LINES = [
    ("not JSON", "this is not json", None, -32700),
    ("cut JSON", '{"jsonrpc": "2.0", "id": 3, "method": "tools/list"', None, -32700),
    ("NaN id", '{"jsonrpc": "2.0", "id": NaN, "method": "tools/list"}', None, -32600),
    ("params an array", '{"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": [1, 2]}', 5, -32602),
    ("params a scalar", '{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": 7}', 6, -32602),
    ("params a string", '{"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": "x"}', "s", -32602),
    ("no method", '{"jsonrpc": "2.0", "id": 8}', 8, -32600),
    ("jsonrpc 1.0", '{"jsonrpc": "1.0", "id": 9, "method": "tools/list"}', 9, -32600),
    ("an array", "[1, 2]", None, -32600),
    ("an empty batch", "[]", None, -32600),
    ("a number", "42", None, -32600),
    ("id a float", '{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}', None, -32600),
    ("a huge id", '{"jsonrpc": "2.0", "id": ' + BIG + ', "method": "tools/list"}', None, -32600),
    ("a huge integer argument",
     '{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "search_deals", "arguments": '
     '{"query": "x", "limit": ' + BIG + '}}}', 12, None),
]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("stdio-replies")
    client = RawStdio(root / "runs", root)
    client.handshake()
    yield client, root / "runs"
    if client.process.poll() is None:
        client.process.kill()
        client.process.communicate()


@pytest.mark.parametrize(("what", "line", "reply_id", "code"), BAD_LINES, ids=[b[0] for b in BAD_LINES])
def test_every_line_gets_a_reply(session, what, line, reply_id, code):
    client, _ = session
    client.send_line(line)
    reply = client.reply(timeout=30)
    assert reply is not None, f"no reply to {what} within 30 s"
    assert reply["jsonrpc"] == "2.0" and reply["id"] == reply_id
    if code is None:
        assert "result" in reply, reply
        text = json.loads(reply["result"]["content"][0]["text"])
        assert text["code"] == "invalid_action" and "digits" in text["message"]  # rule 8, read as sent
    else:
        assert reply["error"]["code"] == code and reply["error"]["message"], reply
    assert client.request("tools/list")["result"]["tools"]  # the session goes on


def test_notifications_and_blank_lines_get_no_reply(session):
    client, _ = session
    for line in ("", "   ", '{"jsonrpc": "2.0", "method": "notifications/whatever", "params": [1]}'):
        client.send_line(line)
    assert client.reply(timeout=2) is None
    assert client.request("tools/list")["result"]["tools"]


def test_an_answer_json_cannot_carry_is_refused_and_the_run_proves(session):
    client, runs = session
    bad = '{"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "submit_answer", ' \
          '"arguments": {"answer": [1, NaN, Infinity]}}}'
    client.send_line(bad)  # the SDK's parser reads NaN and Infinity: the answer is refused, not graded
    reply = client.reply()
    assert reply is not None and reply["id"] == 77 and reply["result"]["isError"] is True
    assert json.loads(reply["result"]["content"][0]["text"])["code"] == "invalid_input"
    done = client.request("tools/call", {"name": "submit_answer", "arguments": {"answer": "Done."}})
    assert done["result"]["isError"] is False
    code, err = client.close()
    assert code == 0, err
    (run,) = list(runs.iterdir())
    report = replay_run(run)
    assert report.identical, report.summary()
