# explaingraph: one image for every processor, the gateway and the tg-* commands.
# Each compose service picks its console script (tg-proc-…, tg-gateway) as its command.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Only what the package needs to build and install (see .dockerignore): no tests, no venv.
# Installed (not editable) into site-packages; the source copy is removed afterwards.
COPY pyproject.toml README.md /tmp/src/
COPY trustgraph_base /tmp/src/trustgraph_base
COPY trustgraph_flow /tmp/src/trustgraph_flow
COPY trustgraph_cli /tmp/src/trustgraph_cli
RUN pip install /tmp/src && rm -rf /tmp/src

WORKDIR /app

# The sample corpus, so `docker compose exec gateway tg-load-document /app/samples/…` works.
COPY samples ./samples

# The entrypoint: a replica without TG_INSTANCE is named after its container (uname -n), so
# its reply topics and subscriptions are its own and N replicas never take each other's
# replies; a ready file left by the previous run is removed, so health means "up again".
RUN printf '#!/bin/sh\n: "${TG_INSTANCE:=$(uname -n)}"\nexport TG_INSTANCE\n[ -z "$TG_READY_FILE" ] || rm -f "$TG_READY_FILE"\nexec "$@"\n' \
        > /usr/local/bin/tg-entrypoint \
    && chmod 0755 /usr/local/bin/tg-entrypoint

# Non-root. /data exists and is owned by the user, so a fresh named volume mounted there
# starts with that owner (Docker copies the mount point's ownership into an empty volume).
RUN useradd --create-home --uid 10001 --user-group tg \
    && mkdir /data \
    && chown tg:tg /data
USER tg
# Each processor (and the gateway) touches the ready file once subscribed (listening).
ENV TG_DATA_DIR=/data \
    TG_READY_FILE=/tmp/tg-ready
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["test", "-f", "/tmp/tg-ready"]

EXPOSE 8088
ENTRYPOINT ["/usr/local/bin/tg-entrypoint"]
CMD ["tg-gateway"]
