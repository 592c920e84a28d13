"""The browser clients' budgets: the widget and the SDK are small (as served, plain and gzip, and as Chromium
fetched them), the attachment code loads only when a file is used, a returning visitor's widget is connected and
joined quickly, and the console keeps a window of a busy workspace, not all of it.
Figures go to .build-test/browser/figures.json (docs/benchmarks.md quotes them)."""
import gzip
import os
import statistics
import threading
import time
import urllib.request
import uuid

import pytest
from conftest import screenshot
from pages import Console, Widget, stored_in_order, wait_for
from files import png
from wire import WireClient

WIDGET_BUDGET = 40 * 1024
WIDGET_GZIP_BUDGET = 14 * 1024
JOINED_BUDGET_MS = 300
# Reloads judged (their median), how long to reload to find them (the host steals in stretches of tens of
# seconds), and the host's steal a judged one may have.
JOINED_RELOADS, JOINED_SECONDS_AT_MOST, STOLEN_CORES_LIMIT = 7, 60, 0.1
# What a visitor loads before opening the widget, and what only a visitor who sends or sees a file loads.
BEFORE_OPENING = ("/widget/widget.js", "/sdk/switchboard.js")
ATTACHMENT_CODE = ("/widget/attachments.js", "/sdk/upload.js")
ATTACHMENT_GZIP_BUDGET = 20 * 1024


def served(gateway, path, gzipped):
    """The body as sent (compressed when asked for and the gateway compresses it) and its Content-Encoding."""
    headers = {"Accept-Encoding": "gzip"} if gzipped else {}
    with urllib.request.urlopen(urllib.request.Request(gateway.base + path, headers=headers), timeout=10) as answer:
        return answer.read(), answer.headers.get("Content-Encoding")


def sizes(gateway, paths):
    """(bytes as the scripts are, bytes sent to a browser that accepts gzip) of `paths` together."""
    raw = sent = 0
    for path in paths:
        plain, _ = served(gateway, path, gzipped=False)
        compressed, encoding = served(gateway, path, gzipped=True)
        assert encoding == "gzip" and gzip.decompress(compressed) == plain, path
        raw += len(plain)
        sent += len(compressed)
    return raw, sent


def test_the_widget_and_the_sdk_fit_their_size_budget(gateway, figures):
    raw, gzipped = sizes(gateway, BEFORE_OPENING)
    figures["widget_and_sdk_bytes"] = {"raw": raw, "gzip": gzipped}
    assert raw <= WIDGET_BUDGET, f"{raw} bytes uncompressed"
    assert gzipped <= WIDGET_GZIP_BUDGET, f"{gzipped} bytes gzipped"
    raw, gzipped = sizes(gateway, ATTACHMENT_CODE)
    figures["attachment_code_bytes"] = {"raw": raw, "gzip": gzipped}
    assert gzipped <= ATTACHMENT_GZIP_BUDGET, f"the attachment code: {gzipped} bytes gzipped"


def scripts_loaded(driver):
    """{path: (bytes received, bytes decoded)} of every script the page loaded, by Resource Timing."""
    entries = driver.execute_script(
        "return performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.endsWith('.js'))"
        ".map((e) => [new URL(e.name).pathname, e.encodedBodySize, e.decodedBodySize])")
    return {path: (encoded, decoded) for path, encoded, decoded in entries}


def test_before_opening_a_visitor_loads_the_widget_and_the_sdk_only(gateway, browsers, figures, tmp_path):
    """What the browser itself fetched, compressed and not: the widget and the SDK until the panel is used;
    the attachment code only once a file is chosen."""
    driver = browsers()
    widget = Widget(driver, f"{gateway.base}/widget/demo.html")
    widget.wait_state("open")
    loaded = scripts_loaded(driver)
    assert set(loaded) == {"/widget/demo.js", *BEFORE_OPENING}, loaded  # demo.js is the host page's own
    received = sum(loaded[path][0] for path in BEFORE_OPENING)
    decoded = sum(loaded[path][1] for path in BEFORE_OPENING)
    figures["widget_and_sdk_loaded_by_chromium"] = {"received": received, "decoded": decoded}
    assert decoded <= WIDGET_BUDGET and received <= WIDGET_GZIP_BUDGET, loaded
    widget.open()
    assert set(scripts_loaded(driver)) == {"/widget/demo.js", *BEFORE_OPENING}, "opening loads nothing more"

    picture = tmp_path / "first.png"
    picture.write_bytes(png(64, 64))
    widget.find("input[type=file]").send_keys(str(picture))
    wait_for(lambda: set(ATTACHMENT_CODE) <= set(scripts_loaded(driver)), message="the attachment code")
    loaded = scripts_loaded(driver)
    received = sum(loaded[path][0] for path in ATTACHMENT_CODE)
    figures["attachment_code_loaded_by_chromium"] = {"received": received,
                                                     "decoded": sum(loaded[path][1] for path in ATTACHMENT_CODE)}
    assert received <= ATTACHMENT_GZIP_BUDGET, loaded


def stolen_seconds():
    """CPU time the hypervisor gave to other guests, all cores together (/proc/stat's steal), or None."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def test_a_returning_visitors_widget_is_joined_within_300_ms(gateway, browsers, figures):
    driver = browsers()
    widget = Widget(driver, f"{gateway.base}/widget/demo.html")
    widget.open()
    widget.wait_state("open")
    widget.send("Remember me")
    wait_for(widget.session_id, message="the session")
    # Judged on reloads the host left alone, as the soak's delays are (docs/operations.md, "Soak runs"): while the
    # hypervisor takes a share of this two-core machine (up to a whole core in 5-s samples of a CI run's browser step),
    # Chromium's page load slows with it whatever the page does. Each reload's steal is recorded beside its time.
    runs, timings, deadline = [], [], time.monotonic() + JOINED_SECONDS_AT_MOST
    while len(timings) < JOINED_RELOADS and time.monotonic() < deadline:
        stolen, started = stolen_seconds(), time.monotonic()
        driver.refresh()
        joined = wait_for(lambda: driver.execute_script("return document.querySelector('switchboard-widget')?.joinedAt"),
                          message="the widget joined again")
        after = stolen_seconds()
        cores = None if stolen is None or after is None else (after - stolen) / (time.monotonic() - started)
        runs.append({"ms": round(joined, 1), "stolen_cores": None if cores is None else round(cores, 2)})
        if cores is None or cores <= STOLEN_CORES_LIMIT:
            timings.append(joined)
        else:
            time.sleep(0.5)
    reloaded = Widget(driver)
    reloaded.open()
    wait_for(lambda: stored_in_order(reloaded.messages()) and len(reloaded.messages()) == 1,
             message="the conversation after reloads")
    figures["widget_load_to_joined_ms"] = {"runs": runs, "judged": [round(t, 1) for t in timings],
                                           "median": round(statistics.median(timings), 1) if timings else None,
                                           "max": round(max(timings), 1) if timings else None}
    if len(timings) < JOINED_RELOADS:
        pytest.skip(f"not judged: the host stole more than {STOLEN_CORES_LIMIT} of a core during "
                    f"{len(runs) - len(timings)} of {len(runs)} reloads: {runs}")
    assert statistics.median(timings) < JOINED_BUDGET_MS, f"page load to joined: {runs} ms"


def test_the_console_keeps_a_window_of_a_busy_workspace(gateway, browsers, figures):
    """10,000 live messages across 200 conversations (and 350 more in the one open in the console)."""
    workspace = str(uuid.uuid4())
    gateway.sql(f"INSERT INTO workspaces (id, name) VALUES ('{workspace}', 'Busy workspace')")
    visitors = [WireClient(gateway, gateway.token("visitor", name=f"Visitor {i}", workspace_id=workspace)["token"])
                for i in range(25)]
    sessions = [(v, v.create_session(f"Busy conversation {i}-{j}")) for i, v in enumerate(visitors) for j in range(8)]
    for visitor, session_id in sessions:  # as the widget does: a session starts with its first message
        visitor.send(session_id, "Message 1 in a busy workspace")
    opened = sessions[-1][1]  # the newest activity: on the inbox's first page

    operator = gateway.token("operator", name="Busy operator", workspace_id=workspace)["token"]
    driver = browsers()
    console = Console(driver, gateway.base, token=operator)
    wait_for(lambda: opened in console.inbox_ids(), message="the conversation to open")
    console.open_session(opened)
    heap = "window.gc(); return performance.memory.usedJSHeapSize"
    before = driver.execute_script(heap)

    per_session = 10_000 // len(sessions)

    def talk(visitor, own):
        for n in range(1, per_session):
            for session_id in own:
                visitor.send(session_id, f"Message {n + 1} in a busy workspace")

    by_visitor = {}
    for visitor, session_id in sessions:
        by_visitor.setdefault(visitor, []).append(session_id)
    threads = [threading.Thread(target=talk, args=item) for item in by_visitor.items()]
    # The open conversation gets more than the console's window (300) besides, from an operator.
    helper = WireClient(gateway, gateway.token("operator", name="Second operator", workspace_id=workspace)["token"])
    helper.join(opened)
    extra = 350
    threads.append(threading.Thread(target=lambda: [helper.send(opened, f"Operator note {n + 1}") for n in range(extra)]))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for client in visitors + [helper]:
        client.close()

    wait_for(lambda: driver.execute_script("return window.switchboardConsole.client.lastSeq(arguments[0])", opened)
             == per_session + extra, 30, "the open conversation's last message")
    after = driver.execute_script(heap)
    shown = len(console.find_all("[data-sb=conversation] [data-sb=message]"))
    rows = len(console.inbox_ids())
    nodes = driver.execute_script("return document.getElementsByTagName('*').length")
    figures["console_10000_messages_200_sessions"] = {
        "heap_before_bytes": before, "heap_after_bytes": after, "messages_shown": shown, "inbox_rows": rows,
        "dom_nodes": nodes}
    screenshot(driver, "console-busy.png")
    assert shown == 300, f"the open conversation keeps a window of 300, not {shown} messages"
    unread = driver.execute_script(
        "return [...document.querySelectorAll('[data-sb=inbox-item]')].map((row) => row.querySelector('.unread')?.textContent)")
    assert unread.count(str(per_session)) == rows - 1, f"every conversation not open counts its unread messages: {unread}"
    assert rows <= len(sessions) + 1
    assert after - before < 16 * 1024 * 1024, f"the console's heap grew by {after - before} bytes"
