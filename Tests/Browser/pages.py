"""Page objects for the widget and the console, by their DOM hooks (docs/protocol.md, "Browser clients")."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def wait_for(condition, timeout=10.0, message="condition"):
    """Polls `condition` until it returns something truthy; fails the test after `timeout`."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = condition()
            if last:
                return last
        except Exception as error:  # the DOM may be mid-update
            last = error
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {message} (last: {last!r})")


class PageMark:
    """When something first held in a page, by the page's own clock: a MutationObserver, installed before the
    action, records Date.now() the first time `predicate` (a JavaScript expression over `root`, the document or a
    shadow root) holds. Polling a page through WebDriver costs a round trip per call, tens of milliseconds that a
    timing would count as the page's; a mark costs the page nothing and is read once it is there. Two marks of
    pages on the same machine compare (one wall clock)."""

    def __init__(self, driver, name, predicate, host=None):
        self.driver, self.name = driver, name
        driver.execute_script(f"""
            const [name, host] = arguments;
            const root = host ? host.shadowRoot : document;
            const holds = () => {{ try {{ return Boolean({predicate}); }} catch (error) {{ return false; }} }};
            const marks = (window.__sbMarks ??= {{}});
            // A mark of the same name that never held is replaced, so it cannot write this one's time.
            const observers = (window.__sbMarkObservers ??= {{}});
            observers[name]?.disconnect();
            delete marks[name];
            const observer = new MutationObserver(() => holds() && done());
            const done = () => {{ marks[name] ??= Date.now(); observer.disconnect(); }};
            observers[name] = observer;
            observer.observe(root, {{ subtree: true, childList: true, attributes: true, characterData: true }});
            if (holds()) done();""", name, host)

    def at(self):
        """Milliseconds since the epoch when the predicate first held, or None so far."""
        return self.driver.execute_script("return window.__sbMarks?.[arguments[0]] ?? null", self.name)


class Shown(list):
    """The messages shown, with `timeline`: the seqs of every stored line (messages and events) in page order."""
    timeline = None


class ChatView:
    """What the widget and the console share: a composer, the messages shown, a typing line."""

    MESSAGES = "[data-sb=message]"
    EVENTS = "[data-sb=event]"

    def write(self, text):
        composer = self.find("[data-sb=composer]")
        composer.send_keys(text)
        composer.send_keys(Keys.ENTER)

    def messages(self):
        """(seq or None, state, sender, body) of every message shown, in order."""
        result = Shown()
        result.timeline = [int(node.get_attribute("data-seq")) for node in self.find_all(f"{self.MESSAGES}, {self.EVENTS}")
                           if node.get_attribute("data-seq")]
        for node in self.find_all(self.MESSAGES):
            seq = node.get_attribute("data-seq")
            result.append((int(seq) if seq else None, node.get_attribute("data-state"),
                           node.find_element(By.CSS_SELECTOR, "[data-sb=sender]").text,
                           node.find_element(By.CSS_SELECTOR, "[data-sb=body]").text))
        return result

    def events(self):
        """(seq, text) of every stored system line shown (joined, closed, reopened...), in order."""
        return [(int(node.get_attribute("data-seq")), node.text) for node in self.find_all(self.EVENTS)]

    def states(self):
        """data-state of every message shown, in order."""
        return [state for _, state, _, _ in self.messages()]

    def typing_visible(self):
        node = self.find("[data-sb=typing]")
        return node.is_displayed() and node.text.strip() != ""


class Widget(ChatView):
    """The visitor widget on a host page: everything is inside its open shadow root."""

    def __init__(self, driver, url=None):
        """The widget on `url`, or on the page the driver shows when `url` is None."""
        self.driver = driver
        if url:
            driver.get(url)
        self.host = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "switchboard-widget"), message="the widget")

    def find(self, selector):
        return self.host.shadow_root.find_element(By.CSS_SELECTOR, selector)

    def find_all(self, selector):
        return self.host.shadow_root.find_elements(By.CSS_SELECTOR, selector)

    def open(self):
        if self.find("[data-sb=launcher]").get_attribute("aria-expanded") != "true":
            self.find("[data-sb=launcher]").click()
        wait_for(lambda: self.find("[data-sb=composer]").is_displayed(), message="the panel")

    @property
    def state(self):
        return self.find("[data-sb=status]").get_attribute("data-state")

    def wait_state(self, state, timeout=20):
        wait_for(lambda: self.state == state, timeout, f"widget state {state}")

    send = ChatView.write

    def session_id(self):
        """The conversation the widget keeps across reloads (localStorage), or None."""
        return self.driver.execute_script(
            "return Object.entries(localStorage).find(([k]) => k.startsWith('switchboard:') && k.endsWith(':session'))?.[1]")

    def banner_visible(self):
        return self.find("[role=alert]").is_displayed()


class Console(ChatView):
    """The operator console, signed in by name through development tokens (or with a given token)."""

    MESSAGES = "[data-sb=conversation] [data-sb=message]"
    EVENTS = "[data-sb=conversation] [data-sb=event]"

    def __init__(self, driver, base, name="Ken", token=None):
        self.driver = driver
        if token:  # an operator token of the test's own (the fragment never reaches the server)
            driver.get(f"{base}/console/#token={token}")
            wait_for(lambda: self.state == "open", 20, "the console to connect")
            return
        driver.get(f"{base}/console/")
        field = wait_for(lambda: driver.find_element(By.ID, "signin-name"), message="the sign-in form")
        wait_for(lambda: field.is_displayed() or driver.find_element(By.ID, "app").is_displayed(), message="sign-in")
        if field.is_displayed():
            field.send_keys(name)
            field.send_keys(Keys.ENTER)
        wait_for(lambda: self.state == "open", 20, "the console to connect")

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def find_all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    @property
    def state(self):
        return self.find("[data-sb=status]").get_attribute("data-state")

    def wait_state(self, state, timeout=20):
        wait_for(lambda: self.state == state, timeout, f"console state {state}")

    def inbox_ids(self):
        """The conversations of the list in its order, as the operator sees them; None while the list is not
        on screen (on a phone, while a conversation is open: the two are separate screens)."""
        return self.driver.execute_script(
            "const list = document.querySelector('[data-sb=inbox]');"
            "if (!list.checkVisibility()) return null;"
            "return [...list.querySelectorAll('[data-sb=inbox-item]')].map((row) => row.dataset.sessionId)")

    def show_list(self):
        """The conversation list on screen, as a person gets it: on a phone, back from a conversation with
        [data-sb=back]; on a desk the list is beside the conversation already."""
        back = self.find("[data-sb=back]")
        if back.is_displayed():
            back.click()
        wait_for(lambda: self.find("[data-sb=inbox]").is_displayed(), message="the conversation list")

    def open_session(self, session_id):
        """Opens a conversation from the list, going back to the list first on a phone."""
        self.show_list()
        row = wait_for(lambda: self.find(f"[data-sb=inbox-item][data-session-id='{session_id}']"),
                       message=f"session {session_id} in the inbox")
        wait_for(row.is_displayed, message=f"session {session_id} shown in the inbox")
        row.click()
        wait_for(lambda: self.find("[data-sb=conversation]").is_displayed(), message="the conversation")

    reply = ChatView.write

    def banner_visible(self):
        return self.find("#banner").is_displayed()


def bodies(messages):
    return [body for _, _, _, body in messages]


def stored_in_order(messages):
    """The messages all stored, each once, seqs 1..n with no gap (events, stored in the same sequence, fill
    their own seqs: with `messages.timeline`, every stored line shown must be 1..n in page order)."""
    seqs = [seq for seq, state, _, _ in messages]
    timeline = messages.timeline if getattr(messages, "timeline", None) is not None else seqs
    return (all(state == "sent" for _, state, _, _ in messages) and timeline == list(range(1, len(timeline) + 1))
            and seqs == sorted(seqs) and set(seqs) <= set(timeline))


def start_conversation(base, browsers, operator_name, first):
    """A console and a widget on `base`, a conversation the operator has open; returns both and its id."""
    operator = Console(browsers(), base, name=operator_name)
    widget = Widget(browsers(), f"{base}/widget/demo.html")
    widget.open()
    widget.wait_state("open")
    widget.send(first)
    session_id = wait_for(widget.session_id, message="the widget's session")
    operator.open_session(session_id)
    wait_for(lambda: bodies(operator.messages()) == [first], message="the first message in the console")
    return operator, widget, session_id


class WebhooksPage:
    """The console's webhooks page (admins), by its DOM hooks (docs/protocol.md, "Browser clients")."""

    def __init__(self, console):
        self.console = console
        self.driver = console.driver
        self.find = console.find
        self.find_all = console.find_all

    def open(self):
        """From the sidebar, as an admin gets there; waits for the list of endpoints."""
        self.find("[data-sb=webhooks-open]").click()
        wait_for(lambda: self.find("[data-sb=webhook-add]").is_displayed(), message="the webhooks page")

    def visit(self, route=""):
        """#/webhooks, #/webhooks/new or #/webhooks/<id>, typed into the address bar's fragment."""
        self.driver.execute_script("location.hash = arguments[0]", f"#/webhooks{'/' + route if route else ''}")

    def open_endpoint(self, endpoint_id):
        self.visit(endpoint_id)
        wait_for(lambda: self.find("[data-sb=webhook-title]").is_displayed(), message=f"endpoint {endpoint_id}")

    def add(self, url, events, description=""):
        """The form filled in by keyboard, from "Add endpoint" to Enter; the focus starts in the URL field."""
        link = self.find("[data-sb=webhook-add]")
        link.send_keys(Keys.ENTER)
        form = wait_for(lambda: self.find("[data-sb=webhook-form]"), message="the endpoint form")
        field = self.driver.switch_to.active_element
        assert field.get_attribute("name") == "url", "the form opens with the focus in its URL field"
        field.send_keys(url)
        for event in events:
            form.find_element(By.CSS_SELECTOR, f"input[name=events][value='{event}']").send_keys(Keys.SPACE)
        description_field = form.find_element(By.NAME, "description")
        description_field.send_keys(description)
        description_field.send_keys(Keys.ENTER)

    def live(self):
        """What the page's polite live region says last."""
        return self.find("[data-sb=webhooks-live]").get_attribute("textContent")

    def secret(self):
        """The secret shown once, waited for."""
        return wait_for(lambda: self.find("[data-sb=webhook-secret-value]").get_property("value"), message="the secret")

    def endpoint_id(self):
        """The endpoint shown, from the address."""
        return self.driver.execute_script("return location.hash.split('/')[2]")

    def deliveries(self):
        """Every delivery row shown, newest first, as the admin reads it (the response's text even when folded)."""
        return self.driver.execute_script("""
            const text = (row, hook) => row.querySelector(`[data-sb=${hook}]`)?.textContent ?? null;
            return [...document.querySelectorAll('[data-sb=delivery]')].map((row) => ({
              id: row.dataset.deliveryId, status: row.dataset.status, type: text(row, 'delivery-event-type'),
              event_id: text(row, 'delivery-event-id'), code: text(row, 'delivery-status-code'),
              attempts: text(row, 'delivery-attempts'), duration: text(row, 'delivery-duration'),
              next_retry: row.querySelector('[data-sb=delivery-next-retry]').parentElement.hidden ? null
                : text(row, 'delivery-next-retry'),
              error: text(row, 'delivery-error'), response: text(row, 'response-head'),
              response_elements: row.querySelector('[data-sb=response-head]').children.length,
            }));""")

    def delivery(self, event_id):
        """The row of one event's delivery, or None."""
        return next((row for row in self.deliveries() if row["event_id"] == event_id), None)

    def row(self, event_id):
        return self.find(f"[data-sb=delivery][data-delivery-id='{self.delivery(event_id)['id']}']")
