"""The normalised fields messages name and that a file may not say itself.

One table serves three purposes: ``facts.names.<field>`` gives each field's name in the file's own
vocabulary (``--max-model-len in the vllm container's args`` rather than
``spec.serving.maxContextTokens``); ``gpulint.dev/<annotation>`` annotations on an object set the
fields a format has no place for (region, data classification, justifications); and ``assume:``
blocks in ``.gpulint.yaml`` set them for files matching a glob.
"""

from typing import NamedTuple

from linter.load.positions import Path, parse_path


class Field(NamedTuple):
    path: Path  # normalised path
    annotation: str | None = None  # gpulint.dev/<annotation>; None: not settable that way


def _field(path: str, annotation: str | None = None) -> Field:
    return Field(parse_path(path), annotation)


#: name -> field. Names are the camelCase keys of ``facts.names`` and of ``assume:`` blocks.
FIELDS: dict[str, Field] = {
    "profile": _field("spec.profile", "profile"),
    "model": _field("spec.model.id", "model"),
    "modelConfig": _field("spec.model.config", "model-config"),
    "parameters": _field("spec.model.parameters", "parameters"),
    "precision": _field("spec.model.precision", "precision"),
    "quantization": _field("spec.model.quantization", "quantization"),
    "modelCache": _field("spec.model.cacheGib", "model-cache-gib"),
    "engine": _field("spec.serving.engine"),
    "engineVersion": _field("spec.serving.engineVersion", "engine-version"),
    "device": _field("spec.serving.device", "device"),
    "maxBatchSize": _field("spec.serving.maxBatchSize"),
    "maxContextTokens": _field("spec.serving.maxContextTokens"),
    "maxNumBatchedTokens": _field("spec.serving.maxNumBatchedTokens"),
    "maxInputTokens": _field("spec.serving.maxInputTokens"),
    "kvCachePrecision": _field("spec.serving.kvCachePrecision"),
    "kvCacheMemoryBytes": _field("spec.serving.kvCacheMemoryBytes"),
    "enforceEager": _field("spec.serving.enforceEager"),
    "gpuMemoryUtilization": _field("spec.serving.gpuMemoryUtilization"),
    "tensorParallel": _field("spec.serving.tensorParallel"),
    "pipelineParallel": _field("spec.serving.pipelineParallel"),
    "dataParallel": _field("spec.serving.dataParallel"),
    "replicas": _field("spec.serving.replicas"),
    "maxReplicas": _field("spec.serving.maxReplicas"),
    "latencySensitive": _field("spec.serving.latencySensitive", "latency-sensitive"),
    "onDemandFallbackReplicas": _field("spec.serving.onDemandFallbackReplicas"),
    "expectedRequestsPerMinute": _field(
        "spec.serving.expectedRequestsPerMinute", "expected-requests-per-minute"
    ),
    "expectedTokensPerMinute": _field(
        "spec.serving.expectedTokensPerMinute", "expected-tokens-per-minute"
    ),
    "fineTuningMethod": _field("spec.fineTuning.method", "fine-tuning-method"),
    "gradientCheckpointing": _field("spec.fineTuning.gradientCheckpointing"),
    "optimizer": _field("spec.fineTuning.optimizer"),
    "microBatchSize": _field("spec.fineTuning.microBatchSize"),
    "sequenceLength": _field("spec.fineTuning.sequenceLength"),
    "sharding": _field("spec.fineTuning.sharding"),
    "loraRank": _field("spec.fineTuning.loraRank"),
    "provider": _field("spec.resources.provider", "provider"),
    "region": _field("spec.resources.region", "region"),
    "instanceType": _field("spec.resources.instanceType", "instance-type"),
    "accelerator": _field("spec.resources.accelerator", "accelerator"),
    "acceleratorCount": _field("spec.resources.accelerator.count"),
    "alternatives": _field("spec.resources.alternatives"),
    "nodes": _field("spec.resources.nodes"),
    "capacity": _field("spec.resources.capacity", "capacity"),
    "pool": _field("spec.resources.pool", "pool"),
    "idleShutdownMinutes": _field("spec.lifecycle.idleShutdownMinutes", "idle-shutdown-minutes"),
    "maxRuntimeHours": _field("spec.lifecycle.maxRuntimeHours", "max-runtime-hours"),
    "scaleToZero": _field("spec.lifecycle.scaleToZero"),
    "alwaysOn": _field("spec.lifecycle.alwaysOn", "always-on"),
    "restartOnPreemption": _field("spec.lifecycle.restartOnPreemption", "restart-on-preemption"),
    "hoursPerMonth": _field("spec.lifecycle.hoursPerMonth", "hours-per-month"),
    "checkpointing": _field("spec.checkpointing"),
    "checkpointUri": _field("spec.checkpointing.uri", "checkpoint-uri"),
    "checkpointInterval": _field(
        "spec.checkpointing.intervalMinutes", "checkpoint-interval-minutes"
    ),
    "resumeFromLatest": _field("spec.checkpointing.resumeFromLatest", "resume-from-latest"),
    "personalData": _field("spec.data.personalData", "personal-data"),
    "dataCategories": _field("spec.data.categories", "data-categories"),
    "residency": _field("spec.data.residency", "residency"),
    "lawfulBasis": _field("spec.data.lawfulBasis", "lawful-basis"),
    "transparencyNotice": _field("spec.data.transparencyNotice", "transparency-notice"),
    "processorAgreement": _field("spec.data.processorAgreement", "processor-agreement"),
    "endpoints": _field("spec.endpoints"),
    "selfHostingJustification": _field(
        "spec.justification.selfHosting", "justification-self-hosting"
    ),
    "trainingFromScratchJustification": _field(
        "spec.justification.trainingFromScratch", "justification-training-from-scratch"
    ),
    "acceptableUseReviewed": _field("spec.acceptableUse.reviewed", "acceptable-use-reviewed"),
    "acceptableUsePolicy": _field("spec.acceptableUse.policy", "acceptable-use-policy"),
}
