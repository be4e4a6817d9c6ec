FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-psycopg2
WORKDIR /python-psycopg
COPY server.py ./
EXPOSE 8080
CMD ["/usr/bin/python3", "server.py"]
