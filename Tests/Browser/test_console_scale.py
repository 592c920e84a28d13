"""The console stays quick in a workspace with a thousand conversations: it pages the inbox and
opens a conversation in under a second."""
import time
import uuid

from conftest import screenshot
from pages import Console, wait_for
from wire import WireClient

SEEDED = 1000
HISTORY = 40


def visitor_conversation(gateway, workspace, title, count):
    """A real session with `count` messages, through the protocol; returns its id."""
    visitor = WireClient(gateway, gateway.token("visitor", name="Scale visitor", workspace_id=workspace)["token"])
    session_id = visitor.create_session(title)
    for i in range(count):
        visitor.send(session_id, f"Message {i + 1} of {count}")
    visitor.close()
    return session_id


def test_the_console_lists_a_thousand_sessions_and_opens_one_in_under_a_second(gateway, browsers, figures):
    workspace = str(uuid.uuid4())
    gateway.sql(f"INSERT INTO workspaces (id, name) VALUES ('{workspace}', 'Scale test')")
    gateway.sql(f"""
        INSERT INTO chat_sessions (workspace_id, user_id, title, status, created_at, updated_at)
        SELECT '{workspace}', 'seeded-' || i, 'Seeded conversation ' || i,
               (ARRAY['open', 'assigned', 'closed'])[1 + i % 3],
               now() - i * interval '1 minute', now() - i * interval '1 minute'
          FROM generate_series(1, {SEEDED}) AS i""")
    # The one to open is the 500th newest: a row of the fifth page.
    target = visitor_conversation(gateway, workspace, "The one to open", HISTORY)
    gateway.sql(f"UPDATE chat_sessions SET updated_at = now() - interval '500 minutes' - interval '30 seconds' "
                f"WHERE id = '{target}'")

    token = gateway.token("operator", name="Scale operator", workspace_id=workspace)["token"]
    driver = browsers()
    started = time.time()
    console = Console(driver, gateway.base, token=token)
    console.find("[data-filter=all]").click()
    wait_for(lambda: len(console.inbox_ids()) >= 100, message="the first inbox page")
    first_page_s = time.time() - started

    # Scrolling pages the rest in; every session is listed once.
    def scrolled_to_end():
        driver.execute_script("const l = document.querySelector('[data-sb=inbox]'); l.scrollTop = l.scrollHeight")
        return len(console.inbox_ids()) >= SEEDED + 1

    wait_for(scrolled_to_end, 30, "every session in the inbox")
    ids = console.inbox_ids()
    assert len(ids) == SEEDED + 1 and len(set(ids)) == len(ids), "each session listed once"
    all_listed_s = time.time() - started

    opened_ms = driver.execute_async_script("""
        const [id, count, done] = arguments;
        const row = document.querySelector(`[data-sb=inbox-item][data-session-id='${id}']`);
        row.scrollIntoView();
        const started = performance.now();
        row.click();
        const check = () => {
          const shown = document.querySelectorAll('[data-sb=conversation] [data-sb=message][data-state=sent]').length;
          if (shown === count && !document.querySelector('[data-sb=conversation]').hidden) done(performance.now() - started);
          else requestAnimationFrame(check);
        };
        check();""", target, HISTORY)
    assert opened_ms < 1000, f"opening a conversation took {opened_ms:.0f} ms"
    assert console.find("#conv-title").text == "The one to open"
    figures["console_1000_sessions"] = {"first_page_s": round(first_page_s, 3), "all_listed_s": round(all_listed_s, 3),
                                        "open_conversation_ms": round(opened_ms, 1)}
    screenshot(driver, "console-inbox-1000.png")
