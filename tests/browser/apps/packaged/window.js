window.addEventListener('load', function () {
  var self = chrome.app.window.current();
  chrome.system.cpu.getInfo(function (cpu) {
    chrome.storage.local.set({ processors: cpu.numOfProcessors }, function () {
      chrome.storage.local.get('processors', function (items) {
        var greeting = '';
        var embed = document.createElement('embed');
        embed.src = 'hello_tutorial.nmf';
        embed.type = 'application/x-pnacl';
        embed.width = 0;
        embed.height = 0;
        embed.addEventListener('load', function () { embed.postMessage(10); });
        embed.addEventListener('message', function (e) {
          if (typeof e.data === 'string') { greeting = e.data; return; }
          var primes = Array.prototype.slice.call(new Int32Array(e.data));
          top.document.body.dataset.result = [
            window.openedBy,
            self.id + ' ' + self.innerBounds.width + 'x' + self.innerBounds.height,
            chrome.runtime.getManifest().name,
            chrome.fileSystem === undefined,
            items.processors === cpu.numOfProcessors && cpu.numOfProcessors > 0,
            greeting,
            primes.join(',')
          ].join(' | ');
        });
        document.getElementById('box').appendChild(embed);
      });
    });
  });
});
