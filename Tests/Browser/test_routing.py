"""Issue 32, routing, as a support team and its visitors meet it: an operator signs in and is online, new
conversations reach it with no click, a visitor past capacity sees its place in line and then the reply,
with everyone away (or the workspace closed) the widget says so and takes an email that reaches the console.

One gateway with automatic assignment (`least_busy`) serves every test here; each test takes a workspace
of its own, so that no operator of another test is a candidate. Waits poll the DOM for what the gateway
pushes (no sleeps)."""
import datetime
import json
import urllib.request
import uuid
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import screenshot
from pages import Console, Widget, bodies, wait_for
from wire import WireClient

# The visitor of the business-hours test is somewhere else than the workspace: the widget speaks its time.
VISITOR_ZONE = "America/New_York"
WORKSPACE_ZONE = "Europe/Berlin"


class Team:
    """What one routing test works in: a workspace of its own on the routing gateway."""

    def __init__(self, gateway, browsers, host_pages):
        self.gateway = gateway
        self.browsers = browsers
        self.host_pages = host_pages
        self.workspace = str(uuid.uuid4())

    def token(self, role, name):
        sub = f"{role[:2]}-{name.lower()}"
        return self.gateway.token(role, name=name, sub=sub, workspace_id=self.workspace)["token"], sub

    def console(self, name, role="operator", width=1280, height=800):
        token, _ = self.token(role, name)
        return Console(self.browsers(width, height), self.gateway.base, token=token)

    def widget(self, name, zone=None, width=1280, height=800):
        token, _ = self.token("visitor", name)
        url = self.host_pages.add(f"shop-{uuid.uuid4().hex[:8]}.html", f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A shop</title>
<script>window.SwitchboardWidget = {{ getToken: async () => "{token}" }};</script>
<script src="{self.gateway.base}/widget/widget.js" defer data-gateway="{self.gateway.ws}" data-title="Acme help"></script>
</head><body><main><h1>Acme garden tools</h1><p>Spades, rakes and the odd wheelbarrow.</p></main></body></html>""")
        driver = self.browsers(width, height)
        if zone:
            driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
        widget = Widget(driver, url)
        widget.open()
        widget.wait_state("open")
        return widget

    def api(self, token, path, method="GET", body=None):
        request = urllib.request.Request(f"{self.gateway.base}{path}", method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response) if response.status != 204 else None

    def operator(self, column, operator_id):
        """A column of an operator's row in this workspace (an id such as op-ken is in every test's)."""
        return self.gateway.value(f"SELECT {column} FROM operators WHERE workspace_id = '{self.workspace}' "
                                  f"AND id = '{operator_id}'")

    def assigned_to(self, session_id):
        return self.gateway.value(f"SELECT coalesce(assigned_operator_id, '') FROM chat_sessions WHERE id = '{session_id}'")


def presence(console):
    return console.find("[data-sb=presence]").get_attribute("data-state")


def availability(widget):
    """(data-state, its first line) of the widget's availability, or None while it is hidden."""
    node = widget.find("[data-sb=availability]")
    return (node.get_attribute("data-state"), node.text.split("\n")[0]) if node.is_displayed() else None


def operator_row(console, operator_id):
    return console.find(f"[data-sb=operators] [data-operator-id='{operator_id}']")


def open_team(console):
    console.find("#team-open").click()
    wait_for(lambda: console.find("[data-sb=team]").is_displayed(), message="the team panel")


def inbox_row(console, session_id):
    return console.find(f"[data-sb=inbox-item][data-session-id='{session_id}']")


def test_an_operator_signs_in_online_and_new_conversations_reach_it_with_no_click(routing_gateway, browsers, host_pages):
    team = Team(routing_gateway, browsers, host_pages)
    ken = team.console("Ken")
    wait_for(lambda: presence(ken) == "online", message="Ken online from signing in")
    open_team(ken)
    row = wait_for(lambda: operator_row(ken, "op-ken"), message="Ken in the team panel")
    wait_for(lambda: row.get_attribute("data-status") == "online" and row.get_attribute("data-connected") == "true",
             message="Ken online and connected in the team panel")
    assert team.operator("status", "op-ken") == "online"

    widget = team.widget("Vera")
    wait_for(lambda: availability(widget) == ("available", "We typically reply in a few minutes"),
             message="the widget's promise, now that someone is there")
    widget.send("Does the big spade come with a handle?")
    session_id = wait_for(widget.session_id, message="the conversation")
    # Nobody clicks anything: the conversation is Ken's, in his inbox and in the widget's history.
    row = wait_for(lambda: inbox_row(ken, session_id), message="the conversation in Ken's inbox")
    wait_for(lambda: row.get_attribute("data-status") == "assigned" and "Ken" in row.text, message="assigned to Ken")
    assert team.assigned_to(session_id) == "op-ken"
    wait_for(lambda: any("Ken" in text for _, text in widget.events()), message="the widget's line: Ken joined")
    wait_for(lambda: availability(widget) == ("available", "We typically reply in a few minutes"),
             message="no place in line once assigned")


def test_past_capacity_a_visitor_sees_its_place_in_line_then_the_reply(routing_gateway, browsers, host_pages):
    team = Team(routing_gateway, browsers, host_pages)
    # Ada, an admin, says she is away before she signs in: signing in keeps that choice.
    ada_token, ada_id = team.token("admin", "Ada")
    ada_wire = WireClient(routing_gateway, ada_token)
    ada_wire.request({"type": "presence.set", "status": "away"})
    ada_wire.close()
    ada = team.console("Ada", role="admin", width=1280, height=860)
    ken = team.console("Ken")
    wait_for(lambda: presence(ken) == "online", message="Ken online")
    wait_for(lambda: presence(ada) == "away", message="Ada still away after signing in")

    # Ada gives Ken room for one conversation at a time, in the team panel.
    open_team(ada)
    capacity = wait_for(lambda: operator_row(ada, "op-ken").find_element(By.CSS_SELECTOR, "[data-sb=capacity]"),
                        message="Ken's capacity field")
    # As a person does it: select what is there and type over it (clearing first would store the default).
    capacity.send_keys(Keys.CONTROL, "a")
    capacity.send_keys("1", Keys.ENTER)
    wait_for(lambda: team.operator("capacity", "op-ken") == "1",
             message="Ken's capacity stored")
    wait_for(lambda: operator_row(ada, "op-ken").find_element(By.CSS_SELECTOR, "[data-sb=load]").text == "0 / 1",
             message="Ken's load against his capacity")

    first = team.widget("Vera")
    first.send("My rake lost its teeth")
    first_id = wait_for(first.session_id, message="the first conversation")
    wait_for(lambda: team.assigned_to(first_id) == "op-ken", message="the first conversation is Ken's")

    second = team.widget("Otto", width=1100, height=760)
    second.send("Is the wheelbarrow in stock?")
    second_id = wait_for(second.session_id, message="the second conversation")
    wait_for(lambda: availability(second) == ("away", "You are number 1 in line. Can't wait? Leave your email:"),
             message="the second visitor's place in line")
    assert team.assigned_to(second_id) == "", "Ken is full: the second conversation waits"
    assert second.find("[data-sb=offline-email]").is_displayed(), "a visitor who cannot wait may leave an address"

    # Ada sees the team and the queue, its waiting time ticking.
    wait_for(lambda: operator_row(ada, "op-ken").find_element(By.CSS_SELECTOR, "[data-sb=load]").text == "1 / 1",
             message="Ken full in the team panel")
    waiting = f"[data-sb=queue-item][data-session-id='{second_id}'] [data-sb=waiting]"
    before = wait_for(lambda: ada.find(waiting).text, message="the queue")
    wait_for(lambda: ada.find(waiting).text != before, message="the waiting time ticking")
    screenshot(ada.driver, "console-team.png")
    screenshot(second.driver, "widget-queued.png")

    # Ken closes the first conversation: his room goes to the second, whose visitor gets his reply.
    ken.open_session(first_id)
    ken.find("[data-sb=close]").click()
    wait_for(lambda: team.assigned_to(second_id) == "op-ken", message="the second conversation assigned once Ken has room")
    wait_for(lambda: not ada.find_all(f"[data-sb=queue-item][data-session-id='{second_id}']"), message="the queue empty")
    ken.open_session(second_id)
    ken.reply("Thanks for waiting: yes, three left")
    wait_for(lambda: "Thanks for waiting: yes, three left" in bodies(second.messages()), message="the reply in the widget")
    wait_for(lambda: availability(second) == ("available", "We typically reply in a few minutes"),
             message="no place in line any more")


def test_with_everyone_away_the_widget_takes_an_email_that_reaches_the_console(routing_gateway, browsers, host_pages):
    team = Team(routing_gateway, browsers, host_pages)
    ken = team.console("Ken")
    wait_for(lambda: presence(ken) == "online", message="Ken online")
    Select(ken.find("[data-sb=presence]")).select_by_value("away")
    wait_for(lambda: presence(ken) == "away", message="Ken away")
    wait_for(lambda: team.operator("status", "op-ken") == "away",
             message="Ken's choice stored")

    widget = team.widget("Vera")
    wait_for(lambda: availability(widget) == ("away", "We're away: leave your email and we'll answer there"),
             message="the widget says nobody is there")
    form = widget.find("[data-sb=offline-email]")
    assert form.is_displayed()
    widget.send("Do you deliver on Saturdays?")
    session_id = wait_for(widget.session_id, message="the conversation")
    form.find_element(By.CSS_SELECTOR, "input[type=email]").send_keys("vera@example.com\n")
    wait_for(lambda: "We'll answer at vera@example.com" in widget.find("[data-sb=availability]").text,
             message="the visitor told where the answer goes")
    assert not form.is_displayed()
    wait_for(lambda: routing_gateway.value(f"SELECT contact->>'email' FROM chat_sessions WHERE id = '{session_id}'")
             == "vera@example.com", message="the address stored on the session")

    row = wait_for(lambda: inbox_row(ken, session_id), message="the conversation in Ken's inbox")
    wait_for(lambda: "vera@example.com" in row.text, message="the address in the inbox")
    ken.open_session(session_id)
    wait_for(lambda: "vera@example.com" in ken.find("[data-sb=contact]").text, message="the address in the conversation")
    assert team.assigned_to(session_id) == "", "nobody online: the conversation waits"


def next_opening(now, closed_today):
    """The next 09:00 in the workspace's zone after `now`, today being a date off."""
    local = now.astimezone(ZoneInfo(WORKSPACE_ZONE))
    day = local.date() + datetime.timedelta(days=1) if closed_today else local.date()
    return datetime.datetime.combine(day, datetime.time(9, 0), ZoneInfo(WORKSPACE_ZONE))


def test_outside_business_hours_the_widget_says_when_the_team_is_back(routing_gateway, browsers, host_pages):
    team = Team(routing_gateway, browsers, host_pages)
    # Ada, an admin, sets the hours in the console: every day 09:00-17:00 in Berlin, today a date off.
    ada = team.console("Ada", role="admin")
    # Away herself: outside the hours a conversation still goes to whoever is online, and this one should wait.
    wait_for(lambda: presence(ada) == "online", message="Ada online")
    Select(ada.find("[data-sb=presence]")).select_by_value("away")
    wait_for(lambda: presence(ada) == "away", message="Ada away")
    open_team(ada)
    form = wait_for(lambda: ada.find("[data-sb=business-hours]"), message="the business hours form")
    today = datetime.datetime.now(ZoneInfo(WORKSPACE_ZONE)).date()
    zone = form.find_element(By.CSS_SELECTOR, "[data-sb=time-zone]")
    zone.clear()
    zone.send_keys(WORKSPACE_ZONE)
    for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun"):
        field = form.find_element(By.CSS_SELECTOR, f"[data-day={day}]")
        field.clear()
        field.send_keys("09:00-17:00")
    closed = form.find_element(By.CSS_SELECTOR, "[data-sb=closed-dates]")
    closed.clear()
    closed.send_keys(today.isoformat())
    form.find_element(By.CSS_SELECTOR, "[data-sb=save-hours]").click()
    wait_for(lambda: "Business hours saved" in ada.find("#notice").text, message="saved")
    wait_for(lambda: ada.find("[data-sb=hours-now]").text.startswith("Closed now, opening"), message="the admin told it is closed")
    stored = team.api(team.token("admin", "Ada")[0], "/api/v1/business-hours")
    assert stored["time_zone"] == WORKSPACE_ZONE and stored["closed_dates"] == [today.isoformat()]
    assert stored["weekly"]["mon"] == [["09:00", "17:00"]]

    widget = team.widget("Vera", zone=VISITOR_ZONE)
    widget.send("Can I still order today?")
    wait_for(widget.session_id, message="the conversation")
    expected = next_opening(datetime.datetime.now(datetime.timezone.utc), closed_today=True)
    def opening_shown():
        # Read in one go: a later availability frame redraws the line, and a
        # reference taken before it goes stale (wait_for then reads again).
        line = widget.find("[data-sb=availability]")
        at = line.find_element(By.CSS_SELECTOR, "time")
        return at.get_attribute("datetime"), at.text, line.text

    stamp, at_text, text = wait_for(opening_shown, message="the next opening time")
    shown = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert shown == expected, f"opens_at {shown}, expected {expected}"
    visitor_time = expected.astimezone(ZoneInfo(VISITOR_ZONE))
    assert "We're back" in text and "(your time)" in text, text
    assert f"{visitor_time.hour % 12 or 12}:{visitor_time.minute:02d}" in at_text, f"{at_text}: not in {VISITOR_ZONE}"
    assert availability(widget)[0] == "away"
    assert widget.find("[data-sb=offline-email]").is_displayed(), "closed: the email form"
    screenshot(widget.driver, "widget-closed.png")
