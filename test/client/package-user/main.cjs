// The packed linkpeek-client from CommonJS: require() of its ES module (Node >= 20.19). A refused
// request, whose answer is the same whatever the service is doing (its /healthz may say degraded).
const { createClient, getMetadata } = require('linkpeek-client');

getMetadata({ client: createClient({ baseUrl: process.argv[2] }), query: { url: 'ftp://example.com/' } }).then(({ response, error }) =>
  console.log(JSON.stringify({ status: response.status, message: error.errors[0].message })),
);
