FROM python:3.12
WORKDIR /pyfalcon
RUN apt-get update && \
    apt-get install -y libpq-dev
COPY requirements.txt .
RUN pip install -r requirements.txt
CMD gunicorn app:app -c gunicorn_conf.py
