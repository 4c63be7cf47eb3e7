"""The Kubernetes family of formats: ``objects`` (the workloads that run GPU pods: Deployments,
Jobs, LeaderWorkerSets, KServe, KubeRay, Kubeflow), ``capacity`` (what Kueue queues,
ResourceQuotas and Karpenter NodePools allow) and ``production_stack`` (vLLM production-stack
Helm values), with what they share: pods, containers, scheduling, labels, quantities.

Nothing is imported here: the registry loads each format module when a document may be its own,
and importing this package must not load all of them."""
