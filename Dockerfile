# LinkPeek in a container (README "Deploying"). The build stage runs exactly the steps that
# .ci/production-path runs and tests on a fresh clone (test/docs/container.test.ts keeps the two in
# step): `npm ci` installs and builds dist/, `npm prune --omit=dev` drops the build tools. The
# runtime stage takes that pruned tree and nothing else: no npm cache, no compilers, not root.
#   docker build -t linkpeek .    docker run -p 3000:3000 linkpeek    (with Redis: compose.yaml)

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --foreground-scripts
RUN npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000
WORKDIR /app
# Owned by root and only read by the service: the process cannot rewrite its own code.
COPY --from=build /app /app
USER node
EXPOSE 3000
# 200 while ok or degraded (README "Health and metrics"), 503 while stopping; node, not curl,
# which the slim image lacks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD node -e "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"
# node is PID 1, with no npm between: `docker stop`'s SIGTERM reaches the service's own handler
# (requests in flight finish within SHUTDOWN_GRACE_MS, 10 s: Docker's default wait, so raise
# `docker stop -t` with it).
CMD ["node", "dist/server/src/main.js"]
