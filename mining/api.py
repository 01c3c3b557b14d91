"""REST API of the mining app: reports (read-only) and import jobs."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from config.api import IdLookupMixin, query_params_refuse_unknown
from mining import selectors, tasks
from mining.filters import ReportFilter
from mining.permissions import CanManageImports
from mining.serializers import (
    ImportJobCreateSerializer,
    ImportJobSerializer,
    ReportDetailSerializer,
    ReportListSerializer,
    ReportReadInputSerializer,
    ReportReadSerializer,
)
from mining.services.import_jobs import import_job_cancel, import_job_create, import_job_rerun


class ReportViewSet(IdLookupMixin, viewsets.ReadOnlyModelViewSet):
    filterset_class = ReportFilter

    def get_queryset(self):
        return selectors.report_list()

    def get_serializer_class(self):
        return ReportDetailSerializer if self.action == "retrieve" else ReportListSerializer

    @extend_schema(parameters=[ReportReadInputSerializer], responses=ReportReadSerializer)
    def retrieve(self, request, pk=None):
        query_params_refuse_unknown(
            request.query_params, [*ReportReadInputSerializer().fields, "format"]
        )
        params = ReportReadInputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        get_object_or_404(self.get_queryset(), pk=pk)
        patches = tasks.report_patches_state(
            report_id=int(pk), fetch=params.validated_data["fetch_patches"]
        )
        report = selectors.report_for_reading(int(pk))
        return Response({**ReportDetailSerializer(report).data, "patches": patches})


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
        job = import_job_create(
            repository_full_name=data["repository"],
            api=data["api"],
            issue_state=data["state"],
            since=data.get("since"),
            patches=data.get("patches"),
            created_by=request.user,
        )
        tasks.enqueue_import(job.pk)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        get_object_or_404(self.get_queryset(), pk=pk)
        job = import_job_cancel(job_id=int(pk))
        return Response(ImportJobSerializer(job).data)

    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        get_object_or_404(self.get_queryset(), pk=pk)
        job = import_job_rerun(job_id=int(pk), created_by=request.user)
        tasks.enqueue_import(job.pk)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_201_CREATED)
