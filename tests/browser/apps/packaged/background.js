// The app's background: on launch, its window, at 480 x 360, told who opened it.
chrome.app.runtime.onLaunched.addListener(function (launchData) {
  chrome.app.window.create('window.html', {
    id: 'main',
    innerBounds: { width: 480, height: 360 }
  }, function (created) {
    created.contentWindow.openedBy = 'background ' + launchData.source;
  });
});
