"""A long column (§29's scale): it draws its first 50 cards, then more as its
end comes near or on "Show more", so 5,000 cards stay quick to show, filter
and drag; its count, the filter and the keyboard still cover every card."""

import re

from conftest import open_board, expect, axe


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
    assert axe(page) == []
    more.scroll_into_view_if_needed()  # near the end: drawn without a click
    expect(cards_in(page)).to_have_count(60)
    expect(more).to_be_hidden()

    # A filter draws the first 50 of what it shows.
    page.goto(page.url.split("?")[0] + "?q=Card")
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
