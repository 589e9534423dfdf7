# lore in a container: `docker build -t lore .`, then see deploy/README.md.
# Two stages: the toolchain and C compilers build the binary; the final image holds only
# the binary, git (repo stores) and the CA roots (TLS is rustls: no OpenSSL at runtime).

FROM rust:1-bookworm AS builder
WORKDIR /src
# The manifests first, then the sources: a change under crates/ does not invalidate the
# layers above it. The cargo registry and target dir are BuildKit cache mounts, so a rebuild
# recompiles only what changed; the binary is copied out because cache mounts are not
# part of the image.
COPY Cargo.toml Cargo.lock ./
COPY crates crates
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git \
    --mount=type=cache,target=/src/target \
    cargo build --locked --profile dist -p lore \
    && install -m 0755 target/dist/lore /usr/local/bin/lore

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 lore \
    && useradd --system --uid 10001 --gid lore --home-dir /data --shell /usr/sbin/nologin lore \
    && mkdir -p /data/models \
    && chown -R lore:lore /data
COPY --from=builder /usr/local/bin/lore /usr/local/bin/lore
# /data/models exists (owned by lore) before the VOLUME line, so a named volume mounted there
# starts with the right owner (deploy/compose.yaml shares the model that way).
ENV LORE_DATA_DIR=/data
VOLUME /data
WORKDIR /data
USER lore
EXPOSE 7411
# No curl in the image: bash's /dev/tcp sends GET /health (answered without a token) to the
# address of the default CMD. Containers that run another command (`db migrate`) should
# turn it off (compose: `healthcheck: disable: true`).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD bash -c 'exec 3<>/dev/tcp/127.0.0.1/7411 && printf "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" >&3 && read -r _ code _ <&3 && [ "$code" = 200 ]'
ENTRYPOINT ["lore"]
CMD ["serve", "--addr", "0.0.0.0:7411", "--no-watch"]
