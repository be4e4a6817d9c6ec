from django.urls import path
from django.http import JsonResponse
urlpatterns = [path("healthz/", lambda r: JsonResponse({"ok": True}))]
