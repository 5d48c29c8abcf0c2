"""The console tools beside the policy pack: none of them is a policy, and none is vendored into a pack.

* :mod:`.check` - ``percona-mysql-policy-check``: a stack program under mocks, or manifests, through the pack;
* :mod:`.bundle` - ``percona-mysql-policy-bundle``: a self-contained pack for ``pulumi policy publish``;
* :mod:`.restore` - ``percona-mysql-restore``: a restore object for a backup or a point in time;
* :mod:`.offline` - a stack program run with every provider mocked (the check's and the tests' preview);
* :mod:`.engine` - the engine's side of the analyzer protocol: start the pack, talk gRPC to it;
* :mod:`.manifests` - Kubernetes manifests and Helm values read as the resources the engine would send;
* :mod:`.inventory` - what a stack would create, with its sizes, as the check prints it;
* :mod:`.project` - where the Pulumi project and its pack are, found as the CLI finds them.

This package may import every layer below it (import-linter: nothing below imports it).
"""
