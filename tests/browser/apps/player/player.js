// Feeds the player a frame at a time, its timestamp 40 ms a frame (25 frames a second);
// each time it says a frame is drawn ("rf {..."t":T, ... }"), reads what its element's
// screen shows and compares it with the source's frame T / 40 (the
// mean difference of R, G and B, out of 255), and with every other frame of the source.
// After the last frame it is told to "reset" (a new stream, as the camera page did when
// the user switched cameras) and fed the first four frames again. body[data-result] is
// then JSON: { drawn: the frames drawn, size, same: the worst difference from its own
// frame, other: the least from any other frame, said: what the plugin said, in order,
// without its frame reports }.
(function () {
  var W = 320, H = 240, N = 12, AGAIN = 4, reset = false;
  var listener = document.getElementById('listener');
  var units = [], source = null, next = 0, drawn = [], said = [], same = 0, other = 1e9;
  var feed = function () {
    if (next >= units.length) return;
    var player = document.getElementById('player');
    player.postMessage('f ' + next * 40);
    player.postMessage(units[next].buffer);
    next++;
  };
  var compare = function (t) {
    var screen = document.querySelector('#listener canvas');
    if (!screen) return;
    var copy = document.createElement('canvas');
    copy.width = W;
    copy.height = H;
    var c = copy.getContext('2d');
    c.drawImage(screen, 0, 0, W, H);
    var px = c.getImageData(0, 0, W, H).data;
    for (var f = 0; f < N; f++) {
      var s = source.subarray(f * W * H * 4, (f + 1) * W * H * 4), sum = 0;
      for (var i = 0; i < px.length; i += 4) {
        sum += Math.abs(px[i] - s[i]) + Math.abs(px[i + 1] - s[i + 1]) + Math.abs(px[i + 2] - s[i + 2]);
      }
      var mean = sum / (W * H * 3);
      if (f === t) same = Math.max(same, mean);
      else other = Math.min(other, mean);
    }
    drawn.push(t);
  };
  listener.addEventListener('message', function (e) {
    if (typeof e.data !== 'string') return;
    var m = /^rf \{.*"t":(\d+)/.exec(e.data);
    if (m) {
      compare(Number(m[1]) / 40);
      if (next < N && !(reset && next >= AGAIN)) feed();
      else if (!reset) {
        reset = true;
        next = 0;
        document.getElementById('player').postMessage('reset');
        feed();
      } else document.body.dataset.result = JSON.stringify({
        drawn: drawn, size: [document.querySelector('#listener canvas').width, document.querySelector('#listener canvas').height],
        same: Number(same.toFixed(2)), other: Number(other.toFixed(2)), said: said,
      });
      return;
    }
    if (/^Received frame/.test(e.data)) return;
    said.push(e.data);
    if (/initialized$/.test(e.data)) feed();
  }, true);
  Promise.all([fetch('video.h264'), fetch('frames.rgba')]).then(function (r) {
    return Promise.all([r[0].arrayBuffer(), r[1].arrayBuffer()]);
  }).then(function (b) {
    // Access units: the stream split before each access unit delimiter (NAL type 9).
    var v = new Uint8Array(b[0]), starts = [];
    for (var i = 0; i + 3 < v.length; i++) {
      if (v[i] === 0 && v[i + 1] === 0 && v[i + 2] === 1 && (v[i + 3] & 31) === 9) starts.push(i > 0 && v[i - 1] === 0 ? i - 1 : i);
    }
    for (var k = 0; k < starts.length; k++) units.push(v.slice(starts[k], k + 1 < starts.length ? starts[k + 1] : v.length));
    source = new Uint8Array(b[1]);
    var embed = document.createElement('embed');
    embed.id = 'player';
    embed.setAttribute('width', W);
    embed.setAttribute('height', H);
    embed.setAttribute('type', 'application/x-pnacl');
    embed.setAttribute('src', 'pnacl_player.nmf');
    embed.setAttribute('hwaccel', '1');
    listener.appendChild(embed);
  });
})();
