function hasNaCl() {
  if (navigator.mimeTypes['application/x-nacl'] === undefined) return false;
  for (var i = 0; i < navigator.plugins.length; i++) {
    if (navigator.plugins[i].name === 'Native Client') return true;
  }
  return false;
}

window.addEventListener('load', function () {
  var box = document.getElementById('box');
  var status = document.getElementById('status');
  var ok = hasNaCl();
  if (!ok) {
    status.textContent = 'Unsupported browser';
    box.style.display = 'none';
  }
  var embed = document.createElement('embed');
  embed.id = 'tracer';
  embed.width = ok ? 320 : 0;
  embed.height = ok ? 240 : 0;
  embed.src = 'path-tracer.nmf';
  embed.type = 'application/x-pnacl';
  box.addEventListener('message', function () {
    var screen = document.querySelector('canvas');
    var plugin = navigator.plugins['Native Client'];
    var mime = navigator.mimeTypes.namedItem('application/x-nacl');
    if (screen && screen.width > 0) {
      document.body.dataset.result = [ok, plugin && plugin.filename, mime && mime.description,
        screen.width + 'x' + screen.height].join(' ');
    }
  }, true);
  box.appendChild(embed);
  if (ok) status.textContent = 'running';
});
