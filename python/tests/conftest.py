# pytester runs inner pytest sessions in a test (test_plugin.py): the plugin as a project sees it.
pytest_plugins = ["pytester"]
