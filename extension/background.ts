// placeholder while the harness is checked
chrome.runtime.onInstalled.addListener(() => undefined)
