from django.contrib import admin

from conversion.models import Batch, Job, Page


class PageInline(admin.TabularInline):
    model = Page
    extra = 0
    fields = ("number", "status", "source", "attempts", "error_code")
    readonly_fields = fields


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("original_name", "owner", "status", "engine", "pages_done", "pages_total",
                    "created_at")  # fmt: skip
    list_filter = ("status", "engine")
    search_fields = ("original_name", "title")
    inlines = [PageInline]


admin.site.register(Batch)
