from django.contrib import admin

from conversion.models import Batch, Job, JobReview, Notification, Page, ReviewEvent


class PageInline(admin.TabularInline):
    model = Page
    extra = 0
    fields = ("number", "status", "source", "attempts", "error_code")
    readonly_fields = fields


class ReviewEventInline(admin.TabularInline):
    model = ReviewEvent
    extra = 0
    fields = ("created_at", "actor", "action", "page", "target", "note")
    readonly_fields = fields
    can_delete = False


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("original_name", "owner", "status", "engine", "pages_done", "pages_total",
                    "created_at")  # fmt: skip
    list_filter = ("status", "engine")
    search_fields = ("original_name", "title")
    inlines = [PageInline, ReviewEventInline]


@admin.register(ReviewEvent)
class ReviewEventAdmin(admin.ModelAdmin):
    """The audit trail is append-only: readable here, never edited."""

    list_display = ("created_at", "job", "actor", "action", "page", "target")
    list_filter = ("action",)
    search_fields = ("job__original_name", "actor__username", "target")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


admin.site.register(Batch)
admin.site.register(JobReview)


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """What was told to whom, and why a webhook or e-mail failed (read only)."""

    list_display = ("created_at", "kind", "event", "owner", "target", "state", "attempts",
                    "sent_at")  # fmt: skip
    list_filter = ("state", "kind", "event")
    search_fields = ("target", "last_error")
    readonly_fields = [f.name for f in Notification._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
