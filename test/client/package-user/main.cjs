// The packed linkpeek-client from CommonJS: require() of its ES module (Node >= 20.19).
const { createClient, getHealth } = require('linkpeek-client');

getHealth({ client: createClient({ baseUrl: process.argv[2] }) }).then(({ data }) => console.log(JSON.stringify({ status: data.status })));
