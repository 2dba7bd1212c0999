// The module's element made by script, in the pattern of the NaCl SDK's common.js (each
// SDK example's page loaded it): a `common` object; on DOMContentLoaded the body's data
// attributes choose the toolchain and configuration, the page asks the browser whether it
// has NaCl for that toolchain's type, and the <embed> is created and appended to
// div#listener, whose capturing listeners hear its load, message, error and crash.
var common = (function () {
  function isHostToolchain(tool) {
    return tool == 'win' || tool == 'linux' || tool == 'mac';
  }

  function mimeTypeForTool(tool) {
    var mimetype = 'application/x-nacl';
    if (isHostToolchain(tool)) {
      mimetype = 'application/x-ppapi-release';
    } else if (tool == 'pnacl') {
      mimetype = 'application/x-pnacl';
    }
    return mimetype;
  }

  function browserSupportsNaCl(tool) {
    if (isHostToolchain(tool)) return true;
    var mimetype = mimeTypeForTool(tool);
    return navigator.mimeTypes[mimetype] !== undefined;
  }

  function createNaClModule(name, tool, path, width, height, attrs) {
    var moduleEl = document.createElement('embed');
    moduleEl.setAttribute('name', 'nacl_module');
    moduleEl.setAttribute('id', 'nacl_module');
    moduleEl.setAttribute('width', width);
    moduleEl.setAttribute('height', height);
    moduleEl.setAttribute('path', path);
    moduleEl.setAttribute('src', path + '/' + name + '.nmf');
    if (attrs) {
      for (var key in attrs) {
        if (attrs.hasOwnProperty(key)) moduleEl.setAttribute(key, attrs[key]);
      }
    }
    moduleEl.setAttribute('type', mimeTypeForTool(tool));
    var listenerDiv = document.getElementById('listener');
    listenerDiv.appendChild(moduleEl);
    common.naclModule = moduleEl;
  }

  function attachDefaultListeners() {
    var listenerDiv = document.getElementById('listener');
    listenerDiv.addEventListener('load', moduleDidLoad, true);
    listenerDiv.addEventListener('message', handleMessage, true);
    listenerDiv.addEventListener('error', handleError, true);
    listenerDiv.addEventListener('crash', handleCrash, true);
  }

  function handleError(event) {
    updateStatus('ERROR [' + common.naclModule.lastError + ']');
  }

  function handleCrash(event) {
    if (common.naclModule.exitStatus == -1) {
      updateStatus('CRASHED');
    } else {
      updateStatus('EXITED [' + common.naclModule.exitStatus + ']');
    }
  }

  function moduleDidLoad() {
    updateStatus('RUNNING');
    if (typeof window.moduleDidLoad !== 'undefined') window.moduleDidLoad();
  }

  function logMessage(message) {
    document.getElementById('log').textContent += message + '\n';
  }

  function handleMessage(message_event) {
    if (typeof message_event.data === 'string' && message_event.data.indexOf('log:') === 0) {
      logMessage(message_event.data.slice(4));
      return;
    }
    if (typeof window.handleMessage !== 'undefined') window.handleMessage(message_event);
  }

  function domContentLoaded(name, tool, path, width, height, attrs) {
    updateStatus('Page loaded.');
    if (!browserSupportsNaCl(tool)) {
      updateStatus('Browser does not support NaCl (' + tool + '), or NaCl is disabled');
    } else if (common.naclModule == null) {
      updateStatus('Creating embed: ' + tool);
      width = typeof width !== 'undefined' ? width : 200;
      height = typeof height !== 'undefined' ? height : 200;
      attachDefaultListeners();
      createNaClModule(name, tool, path, width, height, attrs);
    } else {
      updateStatus('Waiting.');
    }
  }

  var statusText = 'NO-STATUSES';

  function updateStatus(opt_message) {
    if (opt_message) statusText = opt_message;
    var statusField = document.getElementById('statusField');
    if (statusField) statusField.innerHTML = statusText;
  }

  return {
    naclModule: null,
    attachDefaultListeners: attachDefaultListeners,
    domContentLoaded: domContentLoaded,
    createNaClModule: createNaClModule,
    logMessage: logMessage,
    updateStatus: updateStatus
  };
}());

document.addEventListener('DOMContentLoaded', function () {
  var body = document.body;
  if (body.dataset) {
    var loadFunction;
    if (!body.dataset.customLoad) {
      loadFunction = common.domContentLoaded;
    } else if (typeof window.domContentLoaded !== 'undefined') {
      loadFunction = window.domContentLoaded;
    }
    var searchVars = {};
    if (window.location.search.length > 1) {
      var pairs = window.location.search.substr(1).split('&');
      for (var i = 0; i < pairs.length; i++) {
        var kv = pairs[i].split('=');
        searchVars[unescape(kv[0])] = kv.length > 1 ? unescape(kv[1]) : '';
      }
    }
    if (loadFunction) {
      var toolchains = body.dataset.tools.split(' ');
      var configs = body.dataset.configs.split(' ');
      var tc = toolchains.indexOf(searchVars.tc) !== -1 ? searchVars.tc : toolchains[0];
      var config = configs.indexOf(searchVars.config) !== -1 ? searchVars.config : configs[0];
      var pathFormat = body.dataset.path;
      var path = pathFormat.replace('{tc}', tc).replace('{config}', config);
      loadFunction(body.dataset.name, tc, path, body.dataset.width, body.dataset.height);
    }
  }
});
