from django.contrib import admin
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # Pages without a <link rel="icon"> (a result opened in its own tab) ask for /favicon.ico.
    return HttpResponsePermanentRedirect(static("axiya/favicon.svg"))


urlpatterns = [
    path("admin/", admin.site.urls),
    path("favicon.ico", favicon),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", include("conversion.api.urls")),
    path("", include("conversion.urls")),
]
