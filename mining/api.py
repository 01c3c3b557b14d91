"""REST API of the mining app: reports (read-only) and import jobs."""

from django.shortcuts import get_object_or_404
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from config.api import IdLookupMixin
from mining import selectors, services, tasks
from mining.filters import ReportFilter
from mining.serializers import (
    ImportJobCreateSerializer,
    ImportJobSerializer,
    ReportDetailSerializer,
    ReportListSerializer,
)


class ReportViewSet(IdLookupMixin, viewsets.ReadOnlyModelViewSet):
    filterset_class = ReportFilter

    def get_queryset(self):
        return selectors.report_list()

    def get_serializer_class(self):
        return ReportDetailSerializer if self.action == "retrieve" else ReportListSerializer

    def retrieve(self, request, pk=None):
        get_object_or_404(self.get_queryset(), pk=pk)
        report = selectors.report_for_reading(int(pk))
        return Response(ReportDetailSerializer(report).data)


class CanManageImports(permissions.BasePermission):
    """Import jobs (their repositories, errors and quota figures) are for leads and researchers."""

    message = "You may not manage imports."

    def has_permission(self, request, view) -> bool:
        return request.user.has_perm(services.MANAGE_IMPORTS)


class ImportJobViewSet(
    IdLookupMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = ImportJobSerializer
    permission_classes = [permissions.IsAuthenticated, CanManageImports]

    def get_queryset(self):
        return selectors.import_job_list()

    def create(self, request):
        form = ImportJobCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        job = services.import_job_create(
            repository_full_name=data["repository"],
            api=data["api"],
            issue_state=data["state"],
            since=data.get("since"),
            user=request.user,
        )
        tasks.enqueue_import(job.pk)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        get_object_or_404(self.get_queryset(), pk=pk)
        job = services.import_job_cancel(job_id=int(pk), user=request.user)
        return Response(ImportJobSerializer(job).data)

    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        get_object_or_404(self.get_queryset(), pk=pk)
        job = services.import_job_rerun(job_id=int(pk), user=request.user)
        tasks.enqueue_import(job.pk)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_201_CREATED)
