"""Webhooks in the console (issue 34), against the real gateway, its outbox and its dispatcher: an admin adds an
endpoint that points at a receiver the test runs and sees its signing secret once (the secret verifies what the
receiver gets); a test event appears in the delivery log as succeeded, with the receiver's first bytes as text; a
failing receiver shows failed attempts and the next retry, and Retry delivers once it is back, as does "Retry every
failed delivery since"; the gateway's refusal of a private address is said in the form; an endpoint the gateway
disabled says why and is enabled again; edit, rotate (both signatures during the overlap) and delete; operators
never see the page; its code loads only when an admin opens it; keyboard, screen-reader and phone checks."""
import json
import time
import urllib.error
import urllib.request
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import screenshot
from pages import Console, WebhooksPage, wait_for
from receiver import Receiver, signed_with
from test_budgets import scripts_loaded
from test_first_day import axe_results, serious

# What opening the page loads, and the console's first load must not.
WEBHOOK_CODE = {"/console/webhooks.js", "/console/webhooks-api.js", "/console/webhook-form.js",
                "/console/webhook-secret.js", "/console/webhook-deliveries.js", "/console/confirm.js"}
# The webhook_gateway's schedule, divided by 10: the second attempt 0.5 s after the first, the third 30 s later.
# A Retry that succeeds well within those 30 s was the button's doing.
SECOND_RETRY_S = 30


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


class Workspace:
    """A workspace of the test's own (endpoints are per workspace) and its people."""

    def __init__(self, gateway, browsers):
        self.gateway = gateway
        self.browsers = browsers
        self.id = str(uuid.uuid4())
        gateway.sql(f"INSERT INTO workspaces (id, name) VALUES ('{self.id}', 'Webhooks test')")

    def token(self, role, name):
        return self.gateway.token(role, name=name, sub=f"{role[:2]}-{name.lower()}", workspace_id=self.id)["token"]

    def console(self, role="admin", name="Ada", width=1280, height=900):
        return Console(self.browsers(width, height), self.gateway.base, token=self.token(role, name))

    def api(self, path, method="GET", body=None, role="admin"):
        """(HTTP status, JSON answer or None) of the management API, refusals included."""
        request = urllib.request.Request(f"{self.gateway.base}{path}", method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": f"Bearer {self.token(role, 'Api')}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                data = response.read()
                return response.status, json.loads(data) if data else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def endpoint(self, url, events=("message.created",), description=None):
        """An endpoint made over the API (for tests about what comes after); returns (id, secret)."""
        body = {"url": url, "events": list(events), **({"description": description} if description else {})}
        status, answer = self.api("/api/v1/webhooks", "POST", body)
        assert status == 201, answer
        return answer["webhook"]["id"], answer["webhook"]["secret"]


def test_an_admin_adds_an_endpoint_sees_its_secret_once_and_a_test_event_arrives(webhook_gateway, browsers, receiver):
    receiver.answer(200, b'<b>Thanks!</b> {"received":true}')
    team = Workspace(webhook_gateway, browsers)
    page = WebhooksPage(team.console())
    page.open()
    assert page.find("[data-sb=webhooks-empty]").is_displayed()

    page.add(receiver.url, ["message.created", "session.created"], "CRM sync")
    secret = page.secret()
    assert secret.startswith("whsec_"), secret
    # Shown once, said so, and the focus is on it: a screen reader reads it with its warning.
    panel = page.find("[data-sb=webhook-secret]")
    assert "you will not see this secret again" in panel.text
    assert page.driver.switch_to.active_element.get_attribute("data-sb") == "webhook-secret-value"
    assert "Endpoint added" in page.live()
    endpoint_id = page.endpoint_id()
    status, stored = team.api(f"/api/v1/webhooks/{endpoint_id}")
    assert status == 200 and stored["webhook"]["url"] == receiver.url
    assert sorted(stored["webhook"]["events"]) == ["message.created", "session.created"]
    assert "secret" not in stored["webhook"] and secret not in json.dumps(stored), "the API never shows it again"

    # Copy: to the clipboard where the browser lets the page write it (granted here), said in the live region.
    page.driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": webhook_gateway.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    page.find("[data-sb=copy-secret]").click()
    wait_for(lambda: "copied" in page.live(), message="the copy said")
    copied = page.driver.execute_async_script(
        "const done = arguments[0]; navigator.clipboard.readText().then(done, (e) => done(String(e)))")
    assert copied == secret

    # A test event: signed with the secret shown, listed as succeeded with the receiver's answer as text.
    page.find("[data-sb=webhook-test]").click()
    headers, body = wait_for(lambda: receiver.received()[0], message="the test event at the receiver")
    assert signed_with(secret, headers, body), "the secret the console showed signs the deliveries"
    event = json.loads(body)
    assert event["type"] == "webhook.test" and headers["webhook-id"] == event["id"]
    wait_for(lambda: event["id"] in page.live(), message="the test event said")
    row = wait_for(lambda: (page.delivery(event["id"]) or {}).get("status") == "succeeded" and page.delivery(event["id"]),
                   message="the test event succeeded in the log")
    assert row["code"] == "200" and row["attempts"] == "1" and row["type"] == "webhook.test"
    assert row["next_retry"] is None and row["error"] == ""
    assert row["response"] == '<b>Thanks!</b> {"received":true}', "the receiver's bytes, as text"
    assert row["response_elements"] == 0, "never parsed as HTML"
    # The first bytes unfold by keyboard.
    summary = page.row(event["id"]).find_element(By.TAG_NAME, "summary")
    page.driver.execute_script("arguments[0].focus()", summary)
    page.driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(lambda: page.row(event["id"]).find_element(By.CSS_SELECTOR, "[data-sb=response-head]").is_displayed(),
             message="the response unfolded")

    # Once: the endpoint again, after "I have stored it" or a reload, has no secret to show.
    page.find("[data-sb=secret-done]").click()
    assert not page.find_all("[data-sb=webhook-secret]")
    assert page.driver.switch_to.active_element.get_attribute("data-sb") == "webhook-title"
    page.driver.refresh()
    page.console.wait_state("open")
    wait_for(lambda: page.find("[data-sb=webhook-title]").text == receiver.url, message="the endpoint after a reload")
    assert not page.find_all("[data-sb=webhook-secret]")
    page.visit()
    item = wait_for(lambda: page.find(f"[data-sb=webhook][data-webhook-id='{endpoint_id}']"), message="the list")
    assert receiver.url in item.text and "CRM sync" in item.text and "Enabled" in item.text


def test_a_failing_receiver_shows_the_next_retry_and_retry_delivers_once_it_is_back(webhook_gateway, browsers, receiver):
    team = Workspace(webhook_gateway, browsers)
    endpoint_id, _ = team.endpoint(receiver.url, ["session.created", "message.created"], "Ticketing: a ticket per chat")
    page = WebhooksPage(team.console(height=1000))
    page.open_endpoint(endpoint_id)

    # One that arrives, then one the receiver refuses: two attempts (the second 0.5 s after the first), then
    # the next retry 30 s away.
    page.find("[data-sb=webhook-test]").click()
    wait_for(lambda: [row["status"] for row in page.deliveries()] == ["succeeded"], message="the first test event")
    receiver.answer(500, b"<html><body><h1>Internal Server Error</h1><script>alert(1)</script></body></html>")
    page.find("[data-sb=webhook-test]").click()
    event_id = wait_for(lambda: len(receiver.received()) >= 3 and json.loads(receiver.received()[1][1])["id"],
                        message="two failed attempts at the receiver")
    row = wait_for(lambda: (page.delivery(event_id) or {}).get("attempts") == "2" and page.delivery(event_id),
                   message="two attempts in the log")
    assert row["status"] == "pending" and row["code"] == "500"
    assert row["next_retry"] and row["next_retry"].startswith("in "), row
    assert row["response"].startswith("<html><body><h1>Internal Server Error") and row["response_elements"] == 0
    assert row["error"], "the failure is said"
    page.driver.execute_script("arguments[0].open = true", page.row(event_id).find_element(By.TAG_NAME, "details"))
    screenshot(page.driver, "console-webhooks.png")

    # The receiver is back: Retry sends it now, long before the schedule's next attempt.
    receiver.answer(200, b"ok")
    retried = time.monotonic()
    page.row(event_id).find_element(By.CSS_SELECTOR, "[data-sb=delivery-retry]").click()
    wait_for(lambda: page.delivery(event_id)["status"] == "succeeded", SECOND_RETRY_S - 5, "the retried delivery")
    assert time.monotonic() - retried < SECOND_RETRY_S - 5
    row = page.delivery(event_id)
    assert row["code"] == "200" and row["attempts"] == "3" and row["next_retry"] is None
    assert [json.loads(body)["id"] for _, body in receiver.received()].count(event_id) == 3, "one event, its id kept"

    # Retries run out after hours, even scaled: a delivery made `failed` in the database stands for one. The
    # receiver is back; "Retry every failed delivery since" sends it again.
    page.find("[data-sb=webhook-test]").click()
    failed_id = wait_for(lambda: len(receiver.received()) >= 5 and json.loads(receiver.received()[-1][1])["id"],
                         message="the third test event")
    wait_for(lambda: (page.delivery(failed_id) or {}).get("status") == "succeeded", message="the third test event logged")
    team.gateway.sql(f"UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, "
                     f"last_error = 'retries ran out' WHERE event_id = '{failed_id}'")
    # The failures alone, as an admin looks for them in a busy log.
    Select(page.find("[data-sb=deliveries-status]")).select_by_value("failed")
    wait_for(lambda: [(row["event_id"], row["status"]) for row in page.deliveries()] == [(failed_id, "failed")],
             message="the failed delivery alone")
    since = page.find("[data-sb=retry-since]")
    assert since.get_attribute("value"), "a default time to retry from"
    page.find("[data-sb=retry-failed]").click()
    wait_for(lambda: "1 failed delivery is being sent again" in page.live(), message="the bulk retry said")
    wait_for(lambda: page.find("[data-sb=deliveries-empty]").text == "No failed deliveries.", message="none failed now")
    Select(page.find("[data-sb=deliveries-status]")).select_by_value("")
    wait_for(lambda: page.delivery(failed_id)["status"] == "succeeded", message="the failed delivery sent again")


def test_a_private_address_is_refused_with_the_gateways_reason(gateway, browsers, receiver):
    """The shared gateway keeps webhooks.allow_private_targets off, as production does: the receiver on
    127.0.0.1 is refused when the endpoint is made."""
    team = Workspace(gateway, browsers)
    page = WebhooksPage(team.console())
    page.open()
    page.add(receiver.url, ["message.created"])
    error = wait_for(lambda: page.find("[data-sb=webhook-error]").text, message="the refusal")
    assert error.startswith("The gateway refused this URL:"), error
    url = page.find("[data-sb=webhook-form] input[name=url]")
    assert url.get_attribute("aria-invalid") == "true"
    assert page.driver.switch_to.active_element == url, "the focus goes back to the URL to correct it"
    assert page.find("[data-sb=webhook-error]").get_attribute("role") == "alert"
    status, answer = team.api("/api/v1/webhooks", "POST", {"url": receiver.url, "events": ["message.created"]})
    assert (status, answer["error"]["code"]) == (400, "private_target")
    assert team.api("/api/v1/webhooks")[1]["webhooks"] == []


def test_operators_do_not_see_the_page_and_admins_load_it_only_when_they_open_it(gateway, browsers):
    team = Workspace(gateway, browsers)
    operator = team.console(role="operator", name="Ken")
    assert not operator.find("[data-sb=webhooks-open]").is_displayed()
    operator.driver.execute_script("location.hash = '#/webhooks'")
    wait_for(lambda: "admins" in operator.find("#notice").text, message="the operator told")
    assert not operator.find("[data-sb=webhooks]").is_displayed()
    assert not WEBHOOK_CODE & set(scripts_loaded(operator.driver)), "an operator never loads the page's code"
    assert team.api("/api/v1/webhooks", role="operator")[0] == 403

    admin = team.console()
    wait_for(lambda: admin.find("[data-sb=webhooks-open]").is_displayed(), message="the admin's way in")
    loaded = set(scripts_loaded(admin.driver))
    assert not WEBHOOK_CODE & loaded, f"the console's first load carries webhook code: {loaded}"
    sheets = "return performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)"
    assert "/console/webhooks.css" not in admin.driver.execute_script(sheets)
    WebhooksPage(admin).open()
    assert WEBHOOK_CODE <= set(scripts_loaded(admin.driver))
    assert "/console/webhooks.css" in admin.driver.execute_script(sheets)


def test_an_endpoint_the_gateway_disabled_says_why_and_is_enabled_again(webhook_gateway, browsers, receiver):
    team = Workspace(webhook_gateway, browsers)
    endpoint_id, _ = team.endpoint(receiver.url)
    # As the dispatcher leaves an endpoint that failed for webhooks.disable_after_hours (72 h: not waited for).
    reason = "failing since 2026-11-21T09:00:00Z without a success: disabled after 72 hours"
    team.gateway.sql(f"UPDATE webhook_endpoints SET enabled = false, disabled_reason = '{reason}', "
                     f"failing_since = now() - interval '73 hours' WHERE id = '{endpoint_id}'")
    page = WebhooksPage(team.console())
    page.open()
    item = wait_for(lambda: page.find(f"[data-sb=webhook][data-webhook-id='{endpoint_id}']"), message="the endpoint")
    assert item.get_attribute("data-enabled") == "false"
    notice = item.find_element(By.CSS_SELECTOR, "[data-sb=webhook-disabled]")
    assert "Disabled by the gateway" in notice.text and reason in notice.text

    item.find_element(By.CSS_SELECTOR, "[data-sb=webhook-url]").click()
    wait_for(lambda: page.find("[data-sb=webhook-title]").is_displayed(), message="the endpoint's page")
    notice = page.find("[data-sb=webhook-disabled]")
    assert reason in notice.find_element(By.CSS_SELECTOR, "[data-sb=webhook-disabled-reason]").text
    # Where "retry since" starts: when it began to fail (the hour and minute, in the browser's zone).
    assert page.find("[data-sb=retry-since]").get_attribute("value")
    notice.find_element(By.CSS_SELECTOR, "[data-sb=webhook-enable]").click()
    wait_for(lambda: page.find("[data-sb=webhook-state]").text == "Enabled", message="enabled again")
    assert not page.find_all("[data-sb=webhook-disabled]")
    assert "enabled again" in page.live()
    webhook = team.api(f"/api/v1/webhooks/{endpoint_id}")[1]["webhook"]
    assert webhook["enabled"] is True and webhook.get("disabled_reason") is None


def test_edit_rotate_and_delete(webhook_gateway, browsers, receiver):
    team = Workspace(webhook_gateway, browsers)
    endpoint_id, old_secret = team.endpoint(receiver.url)
    page = WebhooksPage(team.console())
    page.open_endpoint(endpoint_id)

    # Rotate: asked first (Cancel keeps the secret), then a new secret shown once and the overlap explained;
    # deliveries meanwhile carry a signature under each secret.
    page.find("[data-sb=webhook-rotate]").click()
    wait_for(lambda: page.find("[data-sb=rotate-confirm]").is_displayed(), message="the rotate dialog")
    assert page.driver.switch_to.active_element.get_attribute("data-sb") == "rotate-confirm-cancel"
    page.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(lambda: not page.find_all("[data-sb=rotate-confirm]"), message="the dialog closed")
    assert page.driver.switch_to.active_element.get_attribute("data-sb") == "webhook-rotate", "focus back"
    assert not page.find_all("[data-sb=webhook-secret]")
    page.find("[data-sb=webhook-rotate]").click()
    page.find("[data-sb=rotate-confirm-confirm]").click()
    new_secret = page.secret()
    assert new_secret.startswith("whsec_") and new_secret != old_secret
    assert "two signatures" in page.find("[data-sb=webhook-secret]").text
    page.find("[data-sb=webhook-test]").click()
    headers, body = wait_for(lambda: receiver.received()[0], message="a delivery during the overlap")
    assert signed_with(old_secret, headers, body) and signed_with(new_secret, headers, body)

    # Edit: events and enabled, the form's focus first in the URL; saved, the summary says so.
    page.find("[data-sb=webhook-edit]").click()
    form = wait_for(lambda: page.find("[data-sb=webhook-form]"), message="the edit form")
    assert page.driver.switch_to.active_element.get_attribute("name") == "url"
    form.find_element(By.CSS_SELECTOR, "input[value='session.updated']").click()
    form.find_element(By.CSS_SELECTOR, "[data-sb=webhook-enabled]").click()
    form.find_element(By.CSS_SELECTOR, "[data-sb=webhook-save]").click()
    wait_for(lambda: page.find("[data-sb=webhook-state]").text == "Disabled", message="saved as disabled")
    assert "session.updated" in page.find("[data-sb=webhook-summary]").text
    webhook = team.api(f"/api/v1/webhooks/{endpoint_id}")[1]["webhook"]
    assert sorted(webhook["events"]) == ["message.created", "session.updated"] and webhook["enabled"] is False

    # Delete: asked first, then gone from the list and the API.
    page.find("[data-sb=webhook-delete]").click()
    dialog = wait_for(lambda: page.find("[data-sb=delete-confirm]"), message="the delete dialog")
    assert receiver.url in dialog.text
    page.find("[data-sb=delete-confirm-confirm]").click()
    wait_for(lambda: page.find("[data-sb=webhook-add]").is_displayed(), message="back on the list")
    assert not page.find_all(f"[data-sb=webhook][data-webhook-id='{endpoint_id}']")
    assert "deleted" in page.live()
    assert team.api(f"/api/v1/webhooks/{endpoint_id}")[0] == 404


@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_fits_a_phone_and_has_no_serious_accessibility_violations(webhook_gateway, browsers, receiver, width):
    team = Workspace(webhook_gateway, browsers)
    team.endpoint(receiver.url, ["session.created", "message.created"])
    console = team.console(width=width, height=800)
    page = WebhooksPage(console)
    page.visit()
    wait_for(lambda: page.find_all("[data-sb=webhook]"), message="the list")
    found = {"list": serious(axe_results(page.driver))}
    page.find("[data-sb=webhook-add]").click()
    wait_for(lambda: page.find("[data-sb=webhook-form]"), message="the form")
    found["form"] = serious(axe_results(page.driver))
    form = page.find("[data-sb=webhook-form]")
    form.find_element(By.NAME, "url").send_keys(receiver.url + "/phone")
    form.find_element(By.CSS_SELECTOR, "input[value='message.created']").click()
    form.find_element(By.CSS_SELECTOR, "[data-sb=webhook-save]").click()
    page.secret()
    page.find("[data-sb=webhook-test]").click()
    wait_for(lambda: [row["status"] for row in page.deliveries()] == ["succeeded"], message="the test event")
    found["endpoint"] = serious(axe_results(page.driver))
    overflow = page.driver.execute_script("return document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than the screen"
    for hook in ("webhook-test", "webhook-rotate", "copy-secret", "delivery-retry"):
        for node in page.find_all(f"[data-sb={hook}]"):
            rect = page.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right]", node)
            assert rect[0] >= 0 and rect[1] <= width, f"{hook} is cut off: {rect}"
    if width < 600:
        # The back control leaves the page for the list of conversations, and the way in gets the focus again.
        page.find("#webhooks-back").click()
        wait_for(lambda: page.find("[data-sb=inbox]").is_displayed(), message="the conversations")
        assert page.driver.switch_to.active_element.get_attribute("data-sb") == "webhooks-open"
    assert not any(found.values()), f"critical or serious violations at {width} px: {found}"
