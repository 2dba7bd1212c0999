// The example's own part, as the SDK's examples had one beside common.js: when the module
// has loaded, a number is posted; the greeting and the primes it answers are shown. The
// test's part: body[data-result] holds them and the status common.js shows.
var greeting = '';

function moduleDidLoad() {
  common.naclModule.postMessage(10);
}

function handleMessage(message) {
  if (typeof message.data === 'string') {
    greeting = message.data;
    common.logMessage(greeting);
    return;
  }
  var primes = Array.prototype.slice.call(new Int32Array(message.data));
  common.logMessage(primes.join(', '));
  document.body.dataset.result = JSON.stringify({
    greeting: greeting,
    primes: primes,
    status: document.getElementById('statusField').textContent
  });
}
