#!/bin/sh
# Installs Debian's package of this stack, or checks that it is there:
#   sh install.sh              install, or check, and print the version
# Root (or sudo) runs apt-get; anyone else gets the command to run. Debian's
# Python is /usr/bin/python3, whatever python3 comes first on PATH.
set -eu
packages="python3-psycopg2"
if ! /usr/bin/python3 -c "import psycopg2" 2>/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y $packages
	else
		echo "run as root: apt-get install -y $packages" >&2
		exit 1
	fi
fi
/usr/bin/python3 -c "import psycopg2; print('psycopg2', psycopg2.__version__)"
