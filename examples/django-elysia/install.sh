#!/bin/sh
# Installs Debian's packages of this example, or checks that they are there:
#   sh install.sh              install, or check, and print the versions
#   sh install.sh --packages   print the package names only
# Root (or sudo) runs apt-get; anyone else gets the command to run. Debian's
# Python is /usr/bin/python3, whatever python3 comes first on PATH.
set -eu
packages="python3-django gunicorn python3-uvicorn python3-uvloop python3-httptools python3-psycopg2 python3-jwt"
if [ "${1:-}" = --packages ]; then
	echo "$packages"
	exit 0
fi

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "missing Debian packages:$missing; install them as root with: apt-get update && apt-get install -y$missing" >&2
		exit 1
	fi
	echo "installing:$missing"
	# A machine that has never fetched the package lists knows no candidates.
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi
/usr/bin/python3 -c 'import django, gunicorn, uvicorn, uvloop, httptools, psycopg2, jwt; print("django", django.get_version(), "gunicorn", gunicorn.__version__, "uvicorn", uvicorn.__version__, "psycopg2", psycopg2.__version__.split()[0], "pyjwt", jwt.__version__)'
