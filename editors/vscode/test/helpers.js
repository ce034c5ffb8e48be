'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** The server binary the tests drive: $PCP_DERIVE_LSP_BIN, else the repository's bin/. */
function serverBinary() {
  const bin = process.env.PCP_DERIVE_LSP_BIN || path.resolve(__dirname, '..', '..', '..', 'bin', 'pcp-derive-lsp');
  if (!fs.existsSync(bin)) {
    throw new Error(`no server binary at ${bin}: build it (make build) or set PCP_DERIVE_LSP_BIN`);
  }
  return bin;
}

module.exports = { serverBinary };
