# syntax=docker/dockerfile:1
#
# passkeyd container image.
#
#   docker build --build-arg PASSKEYD_REVISION=$(git rev-parse --short=12 HEAD) -t passkeyd .
#   docker run --rm -p 8080:8080 -e PASSKEYD_DATABASE_URL=postgresql://… passkeyd           # migrate, then serve
#   docker run --rm -e PASSKEYD_DATABASE_URL=postgresql://… passkeyd migrate                # migrate and exit
#   docker run --rm --entrypoint cat passkeyd /app/Package.resolved                         # what it was built from
#
# Builds from a clone of the repository alone (the context is what .dockerignore lets through). PASSKEYD_REVISION
# is the source revision `passkeyd --version` and /metrics' passkeyd_build_info report: the context has no .git to
# ask, so without the argument it is "unknown". Configuration is the environment (docs/configuration.md); logs are
# JSON Lines on stderr.

ARG SWIFT_VERSION=6.3

# ---- build: the Swift toolchain and the C libraries' headers ----
FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev libcbor-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so source edits do not refetch them. No Package.resolved is committed: Package.swift's `from:`
# versions are resolved afresh within their major versions, and the resolution is kept in the image as
# /app/Package.resolved (the policy: docs/getting-started.md, "Dependency versions"). Docker reuses this layer while
# Package.swift is unchanged; `docker build --no-cache` resolves again.
COPY Package.swift ./
RUN swift package resolve
# The whole package graph is loaded even for one product, so the test targets' sources are needed too.
COPY Sources ./Sources
COPY Tests ./Tests
# The BuildInfo plugin writes the version (VERSION) and the revision into the binary (docs/operations.md, "Version").
COPY VERSION ./
COPY Plugins ./Plugins
# The revision the build records, in the file REVISION, which the plugin reads where there is no .git (SwiftPM runs
# build plugins without the caller's environment, so a variable would not reach it).
ARG PASSKEYD_REVISION=unknown
# The Swift runtime and Foundation are linked statically: the runtime image needs no toolchain.
RUN printf '%s\n' "$PASSKEYD_REVISION" >REVISION \
    && swift build -c release --product passkeyd --static-swift-stdlib \
    && bin="$(swift build -c release --show-bin-path)" \
    && mkdir -p /staging \
    && cp "$bin/passkeyd" Package.resolved /staging/ \
    && strip --strip-debug /staging/passkeyd \
    && cp -R "$bin/passkeyd_PasskeyHTTP.resources" /staging/

# ---- runtime: the C libraries only (libstdc++6 for the statically linked Swift runtime; curl for the healthcheck) ----
FROM debian:bookworm-slim
ARG PASSKEYD_REVISION=unknown
LABEL org.opencontainers.image.title="passkeyd" org.opencontainers.image.revision="${PASSKEYD_REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl3 libcbor0.8 libpq5 libstdc++6 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin passkeyd
WORKDIR /app
# The resource bundle (openapi.json) must sit next to the executable: Bundle.module looks for it there. Beside
# them, Package.resolved: the dependency versions this image was built from.
COPY --from=build /staging/ /app/
COPY Migrations /app/Migrations
ENV PASSKEYD_LISTEN=0.0.0.0:8080 \
    PASSKEYD_MIGRATIONS=/app/Migrations
USER passkeyd:passkeyd
EXPOSE 8080
# /healthz on the port of PASSKEYD_LISTEN (the process is up; /readyz also needs the database).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${PASSKEYD_LISTEN##*:}/healthz" || exit 1
ENTRYPOINT ["/app/passkeyd"]
