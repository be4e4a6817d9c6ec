from . import views_sync
from .urls_common import bad_request, not_found, patterns, server_error

urlpatterns = patterns(views_sync)
handler400 = bad_request
handler404 = not_found
handler500 = server_error
