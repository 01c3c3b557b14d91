"""The board pages for every role, what they show once frozen, the carry-over and its CSV,
the study page's link to them, and the new-study page set up from a frozen board."""

import csv
import io

import pytest

from labeler.coding.board.boards import board_revision_start
from labeler.coding.board.freeze import board_freeze
from labeler.coding.board.themes import codes_group, theme_create
from labeler.common.permissions import codebook_owner_of
from labeler.common.writers import SPREADSHEET_FORMULAS
from labeler.export.datasheet import TEXT_AS_IMPORTED
from labeler.models import Study
from taxonomy.services import codebook_key_give
from tests.labeler.board_factories import code_uses, items_of, open_study_with_items
from tests.labeler.factories import LabellingStudyFactory, StudyMemberFactory

pytestmark = pytest.mark.django_db

PAGES = [
    "/studies/open/board/",
    "/studies/open/board/carry-over/",
    "/studies/open/board/carry-over.csv",
]


@pytest.fixture
def framed_board(board_people):
    study, board = open_study_with_items(
        members=[
            (board_people["annotator"], "annotator"),
            (board_people["lead"], "lead"),
            (board_people["researcher"], "researcher"),
        ]
    )
    study.frame = {
        "repositories": ["octo/torch"],
        "state": "closed",
        "has_fix": True,
        "labels": ["perf"],
        "keywords": ["slow"],
        "candidates": None,
    }
    study.sampling = {"mode": "size", "size": 3, "stratify": None}
    study.seed = 42
    study.save()
    items = items_of(study)
    code_uses(
        board,
        annotator=board_people["annotator"],
        item=items[0],
        names=["slow loop", "tight loop"],
    )
    code_uses(board, annotator=board_people["annotator"], item=items[1], names=["slow loop"])
    return {"study": study, "board": board}


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize(
    ("role", "expected"),
    [("annotator", 403), ("lead", 200), ("researcher", 403), ("outsider", 404), ("staff", 200)],
)
def test_board_pages_for_every_role(client, board_people, framed_board, url, role, expected):
    client.force_login(board_people[role])
    assert client.get(url).status_code == expected


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_is_sent_to_sign_in(client, framed_board, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_a_lead_who_codes_too_is_kept_off_unless_the_round_shares_codes(
    client, board_people, framed_board
):
    StudyMemberFactory(study=framed_board["study"], user=board_people["lead"], role="annotator")
    client.force_login(board_people["lead"])
    assert client.get("/studies/open/board/").status_code == 403
    assert 'data-testid="board-link"' not in client.get("/studies/open/").content.decode()
    Study.objects.filter(pk=framed_board["study"].pk).update(codes_shared=True)
    assert client.get("/studies/open/board/").status_code == 200


def test_the_board_page_documents_its_keys_and_hands_its_script_the_api(
    client, board_people, framed_board
):
    client.force_login(board_people["lead"])
    html = client.get("/studies/open/board/").content.decode()
    assert 'id="board-config"' in html
    assert "/api/studies/open/board/" in html
    assert "<kbd>m</kbd></dt><dd>merge the selected codes into the current one" in html
    assert "<kbd>u</kbd></dt><dd>undo the latest change" in html
    assert 'data-testid="freeze"' in html
    assert 'data-testid="frozen"' not in html
    assert "<script>" not in html  # no inline script: the CSP allows none


def test_the_study_page_links_leads_to_the_board_and_the_carry_over(
    client, board_people, framed_board
):
    client.force_login(board_people["lead"])
    html = client.get("/studies/open/").content.decode()
    assert 'href="/studies/open/board/"' in html
    assert 'href="/studies/open/board/carry-over/"' in html
    for role in ("annotator", "researcher"):
        client.force_login(board_people[role])
        assert 'data-testid="board-links"' not in client.get("/studies/open/").content.decode()


def test_a_closed_study_offers_a_revision_board(client, board_people):
    study = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=study, user=board_people["lead"], role="lead")
    client.force_login(board_people["lead"])
    html = client.get("/studies/closed/").content.decode()
    assert "Revise the codebook" in html
    html = client.get("/studies/closed/board/").content.decode()
    assert 'data-testid="start-revision"' in html
    assert client.get("/studies/closed/board/carry-over/").status_code == 404


def freeze(open_board, lead):
    board = open_board["board"]
    theme = theme_create(board=board, dimension_key="root-cause", name="Loops", user=lead)
    codes = list(board.codes.values_list("pk", flat=True))
    codes_group(board=board, code_ids=codes, theme_id=theme.pk, user=lead)
    theme_create(board=board, dimension_key="symptom", name="Stalls", user=lead)
    return board_freeze(board=board, key="open-perf", version="1", name="Open perf", user=lead)


def test_a_frozen_board_links_to_its_codebook_and_to_a_closed_study_on_it(
    client, board_people, framed_board
):
    codebook = freeze(framed_board, board_people["lead"])
    client.force_login(board_people["lead"])
    html = client.get("/studies/open/board/").content.decode()
    assert 'href="/codebooks/open-perf/1/"' in html
    assert "/studies/new/?codebook=open-perf&amp;version=1&amp;from=open&amp;draw=same" in html
    assert "/studies/new/?codebook=open-perf&amp;version=1&amp;from=open&amp;draw=new" in html
    assert 'data-testid="freeze"' not in html

    response = client.get("/studies/new/?codebook=open-perf&version=1&from=open&draw=same")
    form = response.context["form"]
    assert form.initial["codebook"] == codebook.pk
    assert (form.initial["repositories"], form.initial["state"], form.initial["has_fix"]) == (
        ["octo/torch"],
        "closed",
        "yes",
    )
    assert (form.initial["labels"], form.initial["keywords"]) == ("perf", "slow")
    assert (form.initial["sample_mode"], form.initial["sample_size"], form.initial["seed"]) == (
        "size",
        3,
        42,
    )
    assert form.initial["slug"] == "open-closed"
    html = response.content.decode()
    assert f'<option value="{codebook.pk}" selected>' in html

    response = client.get("/studies/new/?codebook=open-perf&version=1&from=open&draw=new")
    initial = response.context["form"].initial
    assert "seed" not in initial and "sample_mode" not in initial
    assert initial["repositories"] == ["octo/torch"]


def test_a_frozen_board_says_what_it_was_frozen_into(client, board_people, framed_board):
    freeze(framed_board, board_people["lead"])
    client.force_login(board_people["lead"])
    html = client.get("/studies/open/board/").content.decode()
    assert '<h2 data-testid="frozen-head">Frozen into open-perf v1</h2>' in html
    assert "The hierarchy as it was frozen into open-perf v1:" in html
    assert "as it will be frozen" not in html
    assert 'data-testid="freeze-confirm"' not in html


def test_a_frozen_revision_board_offers_the_new_version_and_moving_the_labels(client, board_people):
    study = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=study, user=board_people["lead"], role="lead")
    codebook_key_give(key=study.codebook.key, owner=codebook_owner_of(study))
    board = board_revision_start(study=study, user=board_people["lead"])
    key = study.codebook.key
    board_freeze(board=board, key=key, version="2.0", name="Next", user=board_people["lead"])
    client.force_login(board_people["lead"])

    html = client.get("/studies/closed/board/").content.decode()

    assert '<h2 data-testid="frozen-head">Frozen into ' + key + " v2.0</h2>" in html
    assert f'href="/codebooks/{key}/diff/1.0/2.0/"' in html
    migration = html.split('data-testid="frozen-migration">')[1].split("</section>")[0]
    assert "This study still labels with v1.0." in migration
    assert 'href="/studies/closed/codebook/2.0/" data-testid="migrate-link"' in migration
    # Nothing of an open round: no closed study over the same reports, no open round's codes.
    assert 'data-testid="closed-study-same"' not in html
    assert "open round" not in html
    assert '<h2 id="codes-head">Cards</h2>' in html
    assert "<kbd>s</kbd></dt><dd>split the current card: a copy of it" in html


def test_a_closed_study_from_a_frozen_board_starts_from_guidelines_for_applying_it(
    client, board_people, framed_board
):
    Study.objects.filter(pk=framed_board["study"].pk).update(
        guidelines="Write a short code for what went wrong."
    )
    freeze(framed_board, board_people["lead"])
    client.force_login(board_people["lead"])

    response = client.get("/studies/new/?codebook=open-perf&version=1&from=open&draw=same")

    guidelines = response.context["form"].initial["guidelines"]
    assert "Write a short code" not in guidelines
    assert guidelines.startswith(
        "Label each report with the codebook [Open perf (open-perf v1)](/codebooks/open-perf/1/)"
        ", made from the codes of the open-coding study “Open round”."
    )
    assert "choose the category whose definition fits" in guidelines
    # In the form's text box, for the lead to edit before creating the study.
    assert "Label each report with the codebook [Open perf" in response.content.decode()


def test_the_new_study_page_copies_only_a_study_the_user_leads(client, board_people, framed_board):
    client.force_login(board_people["researcher"])
    response = client.get("/studies/new/?from=open&draw=same&codebook=nope&version=1")
    assert response.context["form"].initial == {}


def test_the_carry_over_page_and_its_csv(client, board_people, framed_board):
    freeze(framed_board, board_people["lead"])
    client.force_login(board_people["lead"])
    html = client.get("/studies/open/board/carry-over/").content.decode()
    assert "<code>loops</code>" in html
    assert "frozen into" in html
    response = client.get("/studies/open/board/carry-over.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="open-carry-over.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["item", "report", "title", "dimension", "codes", "categories", "unsorted"]
    assert [row[1:] for row in rows[1:]] == [
        ["octo/torch#1", "Slow step 1", "root-cause", "slow loop; tight loop", "loops", ""],
        ["octo/torch#2", "Slow step 2", "root-cause", "slow loop", "loops", ""],
    ]


def test_the_carry_over_says_beside_its_download_that_codes_may_read_as_formulas(
    client, board_people, framed_board
):
    """The CSV keeps a code such as "=cmd" as written; the page says so in the export's words."""
    client.force_login(board_people["lead"])

    html = client.get("/studies/open/board/carry-over/").content.decode()

    said = html.split('data-testid="carry-over-as-written">')[1].split("</p>")[0]
    assert said == (
        "Codes, titles and categories are in the CSV exactly as written, nothing escaped: "
        f"{SPREADSHEET_FORMULAS}."
    )
    assert "begins with =, +, - or @ is a formula to a spreadsheet" in said
    assert SPREADSHEET_FORMULAS in TEXT_AS_IMPORTED
    assert html.index('data-testid="carry-over-csv"') < html.index("carry-over-as-written")
