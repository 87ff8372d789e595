"""A long column (§29's scale): it draws its first 50 cards, then more as its
end comes near or on "Show more", so 5,000 cards stay quick to show, filter
and drag; its count, the filter and the keyboard still cover every card."""

import re

from conftest import open_board, expect, axe, location


def cards_in(page, column="To do"):
    return page.get_by_role("list", name=f"Cards in {column}").get_by_role("listitem")


def test_a_long_column_draws_more_as_its_end_comes_near(page, server):
    for i in range(1, 61):
        server.card(f"Card {i:02}")
    open_board(page, server)
    expect(cards_in(page)).to_have_count(50)
    more = page.get_by_role("button", name="Show 10 more (10 not shown)")
    expect(more).to_be_visible()
    todo = page.get_by_role("region", name="To do")
    expect(todo.get_by_text("60", exact=True)).to_be_visible()  # the count is the column's
    # Each card drawn says its place in the whole column, for a screen reader.
    expect(cards_in(page).nth(2)).to_have_attribute("aria-posinset", "3")
    expect(cards_in(page).nth(2)).to_have_attribute("aria-setsize", "60")
    assert axe(page) == []
    more.scroll_into_view_if_needed()  # near the end: drawn without a click
    expect(cards_in(page)).to_have_count(60)
    expect(more).to_be_hidden()
    expect(cards_in(page).nth(2)).not_to_have_attribute("aria-setsize", "60")

    # A filter draws the first 50 of what it shows.
    page.goto(location(page).split("?")[0] + "?q=Card")
    expect(cards_in(page)).to_have_count(50)


def test_the_keyboard_goes_past_the_last_card_drawn(page, server):
    for i in range(1, 56):
        server.card(f"Card {i:02}")
    open_board(page, server)
    expect(cards_in(page)).to_have_count(50)
    cards_in(page).nth(49).get_by_role("link").focus()
    page.keyboard.press("ArrowDown")
    expect(page.locator(":focus")).to_have_text(re.compile("Card 51"))
    expect(cards_in(page)).to_have_count(55)


def test_focus_on_show_more_goes_to_the_first_new_card_when_it_hides(page, server):
    for i in range(1, 61):
        server.card(f"Card {i:02}")
    open_board(page, server)
    expect(cards_in(page)).to_have_count(50)
    more = page.get_by_role("button", name="Show 10 more (10 not shown)")
    more.focus()  # scrolls it into view: its 600 px watch draws the last 10
    expect(cards_in(page)).to_have_count(60)
    expect(more).to_be_hidden()
    expect(cards_in(page).nth(2)).not_to_have_attribute("aria-setsize", "60")
    expect(cards_in(page).nth(50).get_by_role("link", name="Card 51")).to_be_focused()
    assert page.evaluate("document.activeElement !== document.body")


def test_show_more_pressed_with_the_keyboard_keeps_the_focus(page, server):
    for i in range(1, 111):
        server.card(f"Card {i:03}")
    page.set_viewport_size({"width": 1280, "height": 400})
    open_board(page, server)
    expect(cards_in(page)).to_have_count(50)
    # Enter on "Show more" while it is still far below: it stays, and keeps the focus.
    more = page.get_by_role("region", name="To do").get_by_role("button", name=re.compile(r"^Show \d+ more"))
    more.evaluate("b => b.focus({ preventScroll: true })")  # out of its 600 px watch
    page.keyboard.press("Enter")
    expect(cards_in(page)).to_have_count(100)
    expect(more).to_be_focused()
    # Space on the last page: it hides, and the focus goes to the first new card.
    expect(more).to_have_accessible_name("Show 10 more (10 not shown)")
    page.keyboard.press("Space")
    expect(cards_in(page)).to_have_count(110)
    expect(more).to_be_hidden()
    expect(cards_in(page).nth(100).get_by_role("link", name="Card 101")).to_be_focused()
    assert page.evaluate("document.activeElement !== document.body")
