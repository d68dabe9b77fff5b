// Starts `package-sdk lsp --stdio` for the YAML files of the workspace (docs/editor.md).
const { workspace } = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate() {
  const [command, ...args] = workspace.getConfiguration('packageSdk').get('command');
  client = new LanguageClient('package-sdk', 'package-sdk', { command, args, options: { shell: process.platform === 'win32' } }, {
    documentSelector: [{ scheme: 'file', language: 'yaml' }],
  });
  return client.start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
