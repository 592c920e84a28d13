"""Private notes in Chromium: an operator writes one in note mode, a colleague's console shows it apart,
and the visitor's widget never shows it, before or after a reload."""
from selenium.webdriver.common.by import By

from conftest import screenshot
from pages import Console, Widget, bodies, start_conversation, wait_for


def sent_in_order(messages):
    """Every message stored, in seq order, each once: a visitor's seqs skip the notes, so not 1..n."""
    seqs = [seq for seq, _, _, _ in messages]
    return all(state == "sent" for _, state, _, _ in messages) and seqs == sorted(set(seqs)) and None not in seqs


def test_a_note_reaches_the_team_and_never_the_visitor(gateway, browsers):
    ken, widget, session_id = start_conversation(gateway.base, browsers, "Ken", "My parcel arrived broken")
    ann = Console(browsers(), gateway.base, name="Ann")
    wait_for(lambda: session_id in ann.inbox_ids(), 5, "the conversation in Ann's inbox")
    ann.open_session(session_id)

    toggle = ken.find("[data-sb=note-toggle]")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert "only your team" in ken.find("[data-sb=composer]").get_attribute("placeholder")
    assert ken.driver.switch_to.active_element == ken.find("[data-sb=composer]"), "the composer keeps the focus"
    ken.reply("Known customer: refund without asking")

    def notes(console):
        return [(node.get_attribute("data-seq"), node.find_element(By.CSS_SELECTOR, "[data-sb=body]").text,
                 node.find_element(By.CSS_SELECTOR, "[data-sb=sender]").text)
                for node in console.find_all("[data-sb=conversation] [data-sb=note]")]

    wait_for(lambda: notes(ken) and notes(ken)[0][0] == "2", message="the note stored, in Ken's console")
    wait_for(lambda: notes(ann) == [("2", "Known customer: refund without asking", "Ken · Private note")],
             message="the note in Ann's console, marked private")
    # Apart in colour too: not the background of a reply.
    note_colour = ann.driver.execute_script(
        "return getComputedStyle(document.querySelector('[data-sb=note] [data-sb=body]')).backgroundColor")
    assert note_colour == "rgb(255, 244, 204)", note_colour

    # Back to replies (the keyboard shortcut), then a reply the visitor gets.
    ken.find("[data-sb=composer]").send_keys("")
    ken.driver.switch_to.active_element.send_keys("\ue00an\ue000")  # Alt+N
    assert toggle.get_attribute("aria-pressed") == "false"
    ken.reply("Your refund is on its way")
    wait_for(lambda: len(widget.messages()) == 2 and sent_in_order(widget.messages()), message="the reply")
    assert bodies(widget.messages()) == ["My parcel arrived broken", "Your refund is on its way"]
    assert "refund without asking" not in widget.find("[data-sb=log]").text
    screenshot(ann.driver, "console-note.png")

    # A reload: the widget's history has no note either, and the conversation goes on.
    widget.driver.refresh()
    widget = Widget(widget.driver)
    widget.open()
    wait_for(lambda: bodies(widget.messages()) == ["My parcel arrived broken", "Your refund is on its way"],
             message="the history after a reload")
    ken.reply("Anything else?")
    wait_for(lambda: bodies(widget.messages())[-1:] == ["Anything else?"], message="the next reply, past the note")
    assert "refund without asking" not in widget.find("[data-sb=log]").text
    assert [seq for seq, _, _, _ in widget.messages()] == [1, 3, 4]
