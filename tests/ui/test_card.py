"""The card dialog (§25): title, description with a server-rendered preview,
the 412 choice, due date, labels, assignees, checklist, history, archive,
restore, delete, and live changes; found by role and accessible name."""

import re

from conftest import open_board, expect, axe, eventually


def open_card(page, server, card):
    """The board, then the card's dialog (opened from its link)."""
    open_board(page, server)
    page.get_by_role("link", name=card["title"], exact=True).click()
    dialog = page.get_by_role("dialog", name=card["title"])
    expect(dialog).to_be_visible()
    page.wait_for_function("() => performance.getEntriesByName('card-shown').length > 0")
    return dialog


def fetch(server, card):
    return server.ok("GET", f"/api/cards/{card['id']}")


def test_enter_opens_the_card_escape_closes_it_and_focus_returns(page, server):
    card = server.card("Keyboard card")
    open_board(page, server)
    link = page.get_by_role("link", name="Keyboard card", exact=True)
    link.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Keyboard card")
    expect(dialog).to_be_visible()
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}/c/{card['id']}")
    expect(dialog.get_by_role("heading", name="Keyboard card")).to_be_visible()
    for name in ("Description", "Checklist", "Attachments", "Links", "Comments", "Activity"):
        expect(dialog.get_by_role("region", name=name)).to_be_visible()
    page.wait_for_function("() => performance.getEntriesByName('card-shown').length > 0")
    assert axe(page) == []
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}")
    expect(link).to_be_focused()
    # The Close button too, after an edit drew the card's tile again.
    link.click()
    dialog.get_by_role("button", name="Edit title").click()
    dialog.get_by_label("Card title").fill("Renamed card")
    dialog.get_by_label("Card title").press("Enter")
    dialog = page.get_by_role("dialog", name="Renamed card")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Close").click()
    expect(page.get_by_role("link", name="Renamed card", exact=True)).to_be_focused()


def test_title_and_description_are_edited_and_previewed_by_the_server(page, server):
    card = server.card("Plain")
    dialog = open_card(page, server, card)
    dialog.get_by_role("button", name="Edit title").click()
    expect(dialog.get_by_label("Card title")).to_be_focused()
    dialog.get_by_label("Card title").fill("Better title")
    dialog.get_by_role("button", name="Save title").click()
    dialog = page.get_by_role("dialog", name="Better title")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Edit title")).to_be_focused()
    region = dialog.get_by_role("region", name="Description")
    expect(region).to_contain_text("No description yet.")
    region.get_by_role("button", name="Edit description").click()
    region.get_by_role("textbox", name="Description").fill("Some **bold** words")
    region.get_by_role("button", name="Preview").click()
    # Unsaved text: the server renders it as its save will show it, saving nothing.
    expect(region.locator(".preview strong")).to_have_text("bold")
    expect(region).to_contain_text("Not saved yet")
    assert fetch(server, card)["description"] == ""
    region.get_by_role("button", name="Write").click()
    region.get_by_role("textbox", name="Description").fill("Now *this*")
    region.get_by_role("button", name="Save", exact=True).click()
    expect(region.locator("em")).to_have_text("this")
    expect(region.get_by_role("textbox")).to_have_count(0)
    got = fetch(server, card)
    assert (got["title"], got["description"]) == ("Better title", "Now *this*")
    expect(page.get_by_role("link", name="Better title", exact=True)).to_have_count(1)


def test_each_save_is_one_request_and_its_own_echo_reads_nothing(page, server):
    """A title, a description, a comment and its edit: each one request, whose
    answer carries the new tag and HTML (api.md §22); the save's own event on
    the stream reads nothing again but the card's activity, whose new sentence
    only the server writes (api.md §29)."""
    card = server.card("Counted")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Comments")
    expect(region).to_contain_text("No comments yet.")
    sent = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url.split('/api/', 1)[-1]}")
            if "/api/" in r.url and "/api/events" not in r.url else None)

    def requests():
        # Long enough for the save's own event to arrive and be handled.
        page.wait_for_timeout(800)
        out = list(sent)
        sent.clear()
        return out

    # A stream that opens after the board's first read reads the board once
    # more (what was committed between): that read is not a save's.
    page.wait_for_function("() => performance.getEntriesByName('stream-open').length > 0")
    requests()

    cid = card["id"]
    activity = f"GET cards/{cid}/activity"
    dialog.get_by_role("button", name="Edit title").click()
    dialog.get_by_label("Card title").fill("Counted once")
    dialog.get_by_role("button", name="Save title").click()
    dialog = page.get_by_role("dialog", name="Counted once")
    expect(dialog).to_be_visible()
    assert requests() == [f"PATCH cards/{cid}?html=true", activity]
    description = dialog.get_by_role("region", name="Description")
    description.get_by_role("button", name="Edit description").click()
    description.get_by_role("textbox", name="Description").fill("Counted *words*")
    description.get_by_role("button", name="Save", exact=True).click()
    expect(description.locator("em")).to_have_text("words")
    assert requests() == [f"PATCH cards/{cid}?html=true", activity]
    region = dialog.get_by_role("region", name="Comments")
    region.get_by_role("textbox", name="Write a comment").fill("A counted **comment**")
    region.get_by_role("button", name="Comment", exact=True).click()
    expect(region.get_by_role("listitem").locator(".markdown strong")).to_have_text("comment")
    assert requests() == [f"POST cards/{cid}/comments?html=true", activity]
    region.get_by_role("button", name="Edit").click()
    region.get_by_role("textbox", name="Edit comment").fill("An *edited* comment")
    region.get_by_role("button", name="Save", exact=True).click()
    expect(region.get_by_role("listitem").locator(".markdown em")).to_have_text("edited")
    [comment] = server.ok("GET", f"/api/cards/{cid}/comments")
    assert requests() == [f"PATCH comments/{comment['id']}?html=true", activity]
    # The saved tags are current: a save after another's change meets a 412 still.
    got = fetch(server, card)
    assert (got["title"], got["description"]) == ("Counted once", "Counted *words*")


def test_escape_in_an_editor_leaves_the_editor_not_the_typed_text(page, server):
    card = server.card("Careful")
    dialog = open_card(page, server, card)
    dialog.get_by_role("button", name="Edit title").click()
    dialog.get_by_label("Card title").fill("Half typed")
    page.keyboard.press("Escape")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Edit title")).to_be_focused()
    region = dialog.get_by_role("region", name="Description")
    region.get_by_role("button", name="Edit description").click()
    region.get_by_role("textbox", name="Description").fill("Long text being written")
    page.keyboard.press("Escape")
    # Typed text is kept: Escape neither closes the editor nor the dialog.
    expect(region.get_by_role("textbox", name="Description")).to_have_value("Long text being written")
    region.get_by_role("button", name="Cancel").click()
    expect(region.get_by_role("button", name="Edit description")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    assert fetch(server, card)["title"] == "Careful" and fetch(server, card)["description"] == ""


def test_script_payloads_in_title_and_description_never_run(page, server):
    alerts = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    payload = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    card = server.card(payload[:100])
    server.ok("PATCH", f"/api/cards/{card['id']}", {
        "description": f"{payload}\n\n[x](javascript:alert(3)) <svg onload=alert(4)>"})
    dialog = open_card(page, server, card)
    expect(dialog.get_by_role("heading", name=payload[:100])).to_be_visible()
    region = dialog.get_by_role("region", name="Description")
    region.get_by_role("button", name="Edit description").click()
    region.get_by_role("textbox", name="Description").fill(payload + " <b onmouseover=alert(5)>hover</b>")
    region.get_by_role("button", name="Save", exact=True).click()
    expect(region.get_by_role("textbox")).to_have_count(0)
    region.hover()
    page.wait_for_timeout(300)
    assert dialog.locator("script, [onerror], [onload], [onmouseover], a[href^='javascript']").count() == 0
    assert alerts == [] and page.errors == []


def start_conflict(page, server, dialog, card):
    """Opens the description editor, types, and lets someone else save meanwhile."""
    region = dialog.get_by_role("region", name="Description")
    region.get_by_role("button", name="Edit description").click()
    region.get_by_role("textbox", name="Description").fill("Mine")
    server.ok("PATCH", f"/api/cards/{card['id']}", {"description": "Theirs"})
    expect(region.get_by_text("Changed by someone else")).to_be_visible()
    region.get_by_role("button", name="Save", exact=True).click()
    choice = region.get_by_role("group", name=re.compile("Someone else changed the description"))
    expect(choice).to_contain_text("Theirs")
    expect(choice).to_contain_text("Mine")
    assert fetch(server, card)["description"] == "Theirs"
    return region, choice


def test_a_conflict_shows_the_newer_text_and_keep_mine_overwrites(page, server):
    card = server.card("Contested")
    dialog = open_card(page, server, card)
    region, choice = start_conflict(page, server, dialog, card)
    assert axe(page) == []
    dialog = page.get_by_role("dialog")  # its name follows the title, changed below
    choice.get_by_role("button", name="Keep mine").click()
    expect(region.get_by_role("textbox")).to_have_count(0)
    expect(region).to_contain_text("Mine")
    eventually(lambda: fetch(server, card)["description"] == "Mine")
    # The title too: a rename elsewhere, then Use theirs.
    dialog.get_by_role("button", name="Edit title").click()
    dialog.get_by_label("Card title").fill("My title")
    server.ok("PATCH", f"/api/cards/{card['id']}", {"title": "Their title"})
    expect(dialog.get_by_text("Changed by someone else").locator("visible=true")).to_be_visible()
    dialog.get_by_label("Card title").press("Enter")
    choice = dialog.get_by_role("group", name=re.compile("changed the title"))
    expect(choice).to_contain_text("Their title")
    choice.get_by_role("button", name="Use theirs").click()
    expect(page.get_by_role("dialog", name="Their title")).to_be_visible()
    assert fetch(server, card)["title"] == "Their title"


def test_use_theirs_keeps_the_newer_description(page, server):
    card = server.card("Contested again")
    dialog = open_card(page, server, card)
    region, choice = start_conflict(page, server, dialog, card)
    choice.get_by_role("button", name="Use theirs").click()
    expect(region.get_by_role("textbox")).to_have_count(0)
    expect(region).to_contain_text("Theirs")
    page.wait_for_timeout(300)
    assert fetch(server, card)["description"] == "Theirs"


def test_a_label_change_elsewhere_does_not_block_a_description_save(page, server):
    label = server.ok("POST", "/api/labels", {"tenantId": server.tenant, "name": "ops"})
    card = server.card("Busy card")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Description")
    region.get_by_role("button", name="Edit description").click()
    region.get_by_role("textbox", name="Description").fill("Quiet edit")
    server.ok("PUT", f"/api/cards/{card['id']}/labels/{label['id']}")
    expect(dialog.get_by_role("checkbox", name="ops")).to_be_checked()
    region.get_by_role("button", name="Save", exact=True).click()
    expect(region.get_by_role("textbox")).to_have_count(0)
    eventually(lambda: fetch(server, card)["description"] == "Quiet edit")


def test_due_date_is_set_and_cleared(page, server):
    card = server.card("Deadline")
    dialog = open_card(page, server, card)
    dialog.get_by_label("Due date").fill("2031-03-14")
    dialog.get_by_label("Due date").blur()
    eventually(lambda: (fetch(server, card)["dueAt"] or "").startswith("2031-03-1"))
    due = fetch(server, card)["dueAt"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", due)
    expect(page.get_by_role("listitem").filter(has_text="Due Mar 14")).to_have_count(1)
    dialog.get_by_role("button", name="Clear due date").click()
    eventually(lambda: fetch(server, card)["dueAt"] is None)
    expect(dialog.get_by_label("Due date")).to_have_value("")


def test_labels_and_assignees_are_toggled(page, server):
    bug = server.ok("POST", "/api/labels", {"tenantId": server.tenant, "name": "bug", "color": "red"})
    server.ok("POST", "/api/labels", {"tenantId": server.tenant, "name": "ui", "color": "blue"})
    server.ok("PATCH", "/api/me", {"name": "Ada Lovelace"})
    me = server.ok("GET", "/api/me")
    card = server.card("Tagged")
    dialog = open_card(page, server, card)
    labels = dialog.get_by_role("group", name="Labels")
    labels.get_by_role("checkbox", name="bug").check()
    eventually(lambda: fetch(server, card)["labelIds"] == [bug["id"]])
    people = dialog.get_by_role("group", name="Assignees")
    people.get_by_role("checkbox", name="Ada Lovelace").check()
    eventually(lambda: fetch(server, card)["assigneeIds"] == [me["id"]])
    expect(page.get_by_role("listitem").filter(has_text="Assignees: Ada Lovelace")).to_have_count(1)
    labels.get_by_role("checkbox", name="bug").uncheck()
    people.get_by_role("checkbox", name="Ada Lovelace").uncheck()
    eventually(lambda: fetch(server, card)["labelIds"] == [] and fetch(server, card)["assigneeIds"] == [])
    expect(labels.get_by_role("checkbox", name="bug")).not_to_be_checked()
    assert axe(page) == []


def test_checklist_items_are_added_checked_reordered_and_removed(page, server):
    card = server.card("Steps")
    dialog = open_card(page, server, card)
    checklist = dialog.get_by_role("region", name="Checklist")
    for text in ("First", "Second", "Third"):
        checklist.get_by_label("New checklist item").fill(text)
        checklist.get_by_role("button", name="Add item").click()
        expect(checklist.get_by_role("checkbox", name=text)).to_be_visible()
    expect(checklist.get_by_label("New checklist item")).to_be_focused()
    checklist.get_by_role("checkbox", name="Second").check()
    expect(checklist).to_contain_text("1 of 3 done")
    items = checklist.get_by_role("listitem")
    items.filter(has_text="Third").get_by_role("button", name="Move up").click()
    expect(items).to_have_text([re.compile("First"), re.compile("Third"), re.compile("Second")])
    expect(items.filter(has_text="Third").get_by_role("button", name="Move up")).to_be_focused()
    items.filter(has_text="First").get_by_role("button", name="Move down").click()
    expect(items).to_have_text([re.compile("Third"), re.compile("First"), re.compile("Second")])
    items.filter(has_text="Third").get_by_role("button", name="Remove").click()
    expect(items).to_have_count(2)
    expect(checklist).to_contain_text("1 of 2 done")
    got = server.ok("GET", f"/api/cards/{card['id']}/checklist")
    assert [(i["text"], i["done"]) for i in got] == [("First", False), ("Second", True)]
    assert axe(page) == []


def test_activity_shows_each_change_with_its_account_and_time(page, server):
    server.ok("PATCH", "/api/me", {"name": "Grace Hopper"})
    card = server.card("Travelling")
    server.ok("PATCH", f"/api/cards/{card['id']}", {"columnId": server.column("Doing")["id"]})
    dialog = open_card(page, server, card)
    activity = dialog.get_by_role("region", name="Activity").get_by_role("listitem")
    expect(activity).to_have_count(2)
    expect(activity.first).to_contain_text("Grace Hopper moved the card from “To do” to “Doing”")
    expect(activity.first).to_contain_text(re.compile(r"now|seconds? ago"))
    expect(activity.last).to_contain_text("created the card in “To do”")
    # Live: a change made elsewhere shows at once, its parts' too.
    server.ok("PATCH", f"/api/cards/{card['id']}", {"columnId": server.column("Done")["id"]})
    expect(activity.first).to_contain_text("moved the card from “Doing” to “Done”")
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "Arrived"})
    expect(activity.first).to_contain_text("Grace Hopper commented")
    assert axe(page) == []


def test_archive_restore_and_delete_ask_first(page, server):
    card = server.card("Finished")
    server.card("Neighbour")
    dialog = open_card(page, server, card)
    dialog.get_by_role("button", name="Archive card").click()
    confirm = page.get_by_role("dialog", name="Archive “Finished”?")
    confirm.get_by_role("button", name="Cancel").click()
    expect(dialog.get_by_role("button", name="Archive card")).to_be_focused()
    assert fetch(server, card)["archivedAt"] is None
    dialog.get_by_role("button", name="Archive card").click()
    confirm.get_by_role("button", name="Archive card").click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}")
    expect(page.get_by_role("link", name="Finished", exact=True)).to_have_count(0)
    expect(page.get_by_role("link", name="Neighbour", exact=True)).to_be_focused()
    assert fetch(server, card)["archivedAt"]
    # An archived card's dialog (its own URL) offers Restore.
    page.goto(f"/w/{server.tenant}/c/{card['id']}")
    dialog = page.get_by_role("dialog", name="Finished")
    expect(dialog).to_contain_text("This card is archived")
    dialog.get_by_role("button", name="Restore card").click()
    expect(dialog.get_by_role("button", name="Archive card")).to_be_focused()
    assert fetch(server, card)["archivedAt"] is None
    dialog.get_by_role("button", name="Delete card").click()
    page.get_by_role("dialog", name="Delete “Finished”?").get_by_role("button", name="Delete card").click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    assert server.api("GET", f"/api/cards/{card['id']}")[0] == 404


def test_changes_elsewhere_show_in_the_open_dialog_live(page, server):
    card = server.card("Watched")
    dialog = open_card(page, server, card)
    server.ok("PATCH", f"/api/cards/{card['id']}", {"title": "Watched and renamed", "description": "_new_"})
    expect(page.get_by_role("dialog", name="Watched and renamed")).to_be_visible()
    expect(dialog.get_by_role("region", name="Description").locator("em")).to_have_text("new")
    server.ok("POST", f"/api/cards/{card['id']}/checklist", {"text": "Appeared"})
    checklist = dialog.get_by_role("region", name="Checklist")
    expect(checklist.get_by_role("checkbox", name="Appeared")).to_be_visible()
    expect(checklist).to_contain_text("0 of 1 done")
    server.ok("DELETE", f"/api/cards/{card['id']}")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_role("status")).to_contain_text("was deleted by someone else")


def test_the_dialog_fits_narrow_and_wide_screens_light_and_dark(page, server):
    card = server.card("Sized")
    server.ok("POST", f"/api/cards/{card['id']}/checklist", {"text": "An item with a long text " * 4})
    for width, scheme in ((390, "light"), (1440, "dark")):
        page.set_viewport_size({"width": width, "height": 844})
        page.emulate_media(color_scheme=scheme)
        dialog = open_card(page, server, card)
        box = dialog.bounding_box()
        assert box["width"] <= width
        assert dialog.evaluate("d => d.scrollWidth <= d.clientWidth")
        assert axe(page) == []
        page.keyboard.press("Escape")
        expect(page.get_by_role("dialog")).to_have_count(0)


# Watching (§26)

def test_the_watch_switch_records_the_callers_own_choice(page, server):
    card = server.card("Followed")
    dialog = open_card(page, server, card)
    switch = dialog.get_by_role("switch", name="Watch")
    # The admin created the card: it watches it.
    expect(switch).to_have_attribute("aria-checked", "true")
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "false")
    assert fetch(server, card)["watching"] is False
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true")
    assert fetch(server, card)["watching"] is True
    assert axe(page) == []
