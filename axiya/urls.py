from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # Pages without a <link rel="icon"> (a result opened in its own tab) ask for /favicon.ico.
    return HttpResponsePermanentRedirect(static("axiya/favicon.svg"))


def _needs_mail(view):
    """Password reset mails a link: without a mail server (AXIYA_EMAIL_HOST) it is off."""

    def wrapper(request: HttpRequest, *args, **kwargs):
        if not settings.EMAIL_HOST:
            raise Http404("Password reset is off: ask the administrator to reset your password.")
        return view(request, *args, **kwargs)

    return wrapper


# django.contrib.auth.urls' reset routes, first so that they win over the include below.
_reset = [
    ("password_reset/", auth_views.PasswordResetView, "password_reset"),
    ("password_reset/done/", auth_views.PasswordResetDoneView, "password_reset_done"),
    ("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView, "password_reset_confirm"),
    ("reset/done/", auth_views.PasswordResetCompleteView, "password_reset_complete"),
]
# The site's own error pages (conversion/error_views.py); /api/ answers in JSON whatever they say.
handler403 = "conversion.error_views.permission_denied"
handler404 = "conversion.error_views.page_not_found"
handler500 = "conversion.error_views.server_error"
urlpatterns = [
    path("admin/", admin.site.urls),
    path("favicon.ico", favicon),
    *[
        path(f"accounts/{route}", _needs_mail(view.as_view()), name=name)
        for route, view, name in _reset
    ],  # fmt: skip
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", include("conversion.api.urls")),
    path("", include("conversion.urls")),
]
