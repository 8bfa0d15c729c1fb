# LinkPeek in a container (README "Deploying"). The build stage runs exactly the steps that
# .ci/production-path runs and tests on a fresh clone (test/docs/container.test.ts keeps the two in
# step): `npm ci` installs and builds dist/, `npm prune --omit=dev` drops the build tools. The
# runtime stage takes only what runs from that pruned tree (package.json, openapi.yaml, the
# production node_modules and dist/): no sources, tests, benchmarks, npm cache or compilers; not root.
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
COPY --from=build /app/package.json /app/openapi.yaml /app/
COPY --from=build /app/node_modules /app/node_modules
COPY --from=build /app/dist /app/dist
USER node
EXPOSE 3000
# 200 while ok or degraded (README "Health and metrics"), 503 while stopping; asked at the HOST
# and PORT the service listens on (a wildcard HOST on loopback): src/healthcheck.ts.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD node dist/server/src/healthcheck.js
# node is PID 1, with no npm between: `docker stop`'s SIGTERM reaches the service's own handler
# (requests in flight finish within SHUTDOWN_GRACE_MS, 10 s: Docker's default wait, so raise
# `docker stop -t` with it).
CMD ["node", "dist/server/src/main.js"]
