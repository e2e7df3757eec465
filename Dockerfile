# One Quire node: `docker build -t quire .`, run by docker-compose.yml (PostgreSQL, Redis and three nodes).
# The build stage installs everything and builds exactly as `npm run build` does; the image keeps the built tree and
# the runtime dependencies only, and runs as the unprivileged `node` user.
FROM node:20-bookworm-slim AS build
WORKDIR /quire
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# The embedded browser (the MCP browser tools, the console's Browser view) drives Debian's Chromium.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /quire
COPY --from=build --chown=node:node /quire/package.json /quire/package-lock.json ./
COPY --from=build --chown=node:node /quire/node_modules ./node_modules
COPY --from=build --chown=node:node /quire/dist ./dist
RUN chmod +x dist/adapters/cli/main.js \
  && ln -s /quire/dist/adapters/cli/main.js /usr/local/bin/quire \
  && mkdir -p /data /workspace \
  && chown node:node /data /workspace
# Each node's own data directory (its port file, snapshots, browser profile); the log itself is in PostgreSQL when
# the node is started with --store.
ENV QUIRE_HOME=/data
VOLUME ["/data"]
USER node
EXPOSE 4100
ENTRYPOINT ["quire"]
CMD ["serve", "--port", "4100"]
