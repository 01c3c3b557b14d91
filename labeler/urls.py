"""Pages of the labeler app: the home page, studies (set-up, members, labelling, items,
agreement, adjudication, analysis) and the comparison of report groups."""

from django.urls import include, path

from labeler.adjudication import views as adjudication
from labeler.agreement import views as agreement
from labeler.analysis import views as analysis
from labeler.coding.board import views as board
from labeler.export import views as export
from labeler.home import home
from labeler.imports import views as imports
from labeler.items import views as items
from labeler.labelling import views as labelling
from labeler.members import views as members
from labeler.revisions import views as revisions
from labeler.screening import views as screening
from labeler.studies import views as studies

study_patterns = [
    path("studies/", studies.study_list, name="list"),
    path("studies/new/", studies.study_new, name="new"),
    path("studies/<slug:slug>/", studies.study_detail, name="detail"),
    path("studies/<slug:slug>/batches/", studies.study_batch_add, name="batch-add"),
    path("studies/<slug:slug>/members/", members.study_members, name="members"),
    path("studies/<slug:slug>/import/", imports.study_import, name="import"),
    path("studies/<slug:slug>/import/<int:job_id>/", imports.study_import_job, name="import-job"),
    path("studies/<slug:slug>/export/", export.study_export, name="export"),
    path("studies/<slug:slug>/label/", labelling.study_label, name="label"),
    path("studies/<slug:slug>/items/", items.study_items, name="items"),
    path("studies/<slug:slug>/analysis/", analysis.study_analysis, name="analysis"),
    path("studies/<slug:slug>/agreement/", agreement.study_agreement_page, name="agreement"),
    path(
        "studies/<slug:slug>/agreement/plan/",
        agreement.double_coding_plan_page,
        name="agreement-plan",
    ),
    path(
        "studies/<slug:slug>/agreement/parent-distance/",
        agreement.study_parent_distance,
        name="agreement-parent-distance",
    ),
    path(
        "studies/<slug:slug>/agreement/kappa-scale/",
        agreement.study_kappa_scale,
        name="agreement-kappa-scale",
    ),
    path("studies/<slug:slug>/adjudicate/", adjudication.adjudication_queue, name="adjudicate"),
    path(
        "studies/<slug:slug>/adjudicate/<int:item_id>/",
        adjudication.adjudication_item,
        name="adjudicate-item",
    ),
    path("studies/<slug:slug>/policy/", adjudication.study_policy, name="policy"),
    path(
        "studies/<slug:slug>/codebook/<codebook:version>/",
        revisions.revision_page,
        name="codebook-migrate",
    ),
    path("studies/<slug:slug>/board/", board.board_page, name="board"),
    path("studies/<slug:slug>/board/carry-over/", board.carry_over_page, name="carry-over"),
    path("studies/<slug:slug>/board/carry-over.csv", board.carry_over_csv, name="carry-over-csv"),
    path(
        "studies/<slug:slug>/items/<int:item_id>/history/",
        items.item_history_page,
        name="item-history",
    ),
    path(
        "studies/<slug:slug>/items/<int:item_id>/report/",
        items.item_report,
        name="item-report",
    ),
    path("studies/<slug:slug>/triage/", screening.triage_page, name="triage"),
    path("studies/<slug:slug>/triage/<int:run_id>/", screening.triage_run_page, name="triage-run"),
    path(
        "studies/<slug:slug>/triage/<int:run_id>/batch/",
        screening.triage_batch,
        name="triage-batch",
    ),
]

urlpatterns = [
    path("", home, name="home"),
    path("reports/compare/", analysis.reports_compare_page, name="reports-compare"),
    path("invitations/join/", members.invitation_join, name="invitation-join"),
    path("invitations/<str:token>/", members.invitation_open, name="invitation-accept"),
    path("", include((study_patterns, "studies"))),
]
