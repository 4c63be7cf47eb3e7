"""Generate N realistic gpulint manifests for benchmarks: every profile, 30-80 lines, a mix of
clean and violating documents, spread over team folders, plus one QuotaLedger.

    python benchmarks/generate.py OUT_DIR N [--seed S] [--kubernetes | --sharing shared|separate]

With --kubernetes it writes N Kubernetes GPU Deployments instead (the input checkov scans),
so tools can be compared on the same count of files.

With --sharing it writes N serving workloads of one shape that gpulint finds nothing wrong with,
for the cost of cross-file facts: ``shared`` puts every workload in one pool and one region, so
all draw on one accelerator quota; ``separate`` gives each workload a pool of its own and spreads
them over every region that offers the instance type (the fewest workloads per quota a cloud
allows). Apart from pool and region the two sets are the same files (same seed, same values),
and their ledger approves every quota they draw on. Having no findings, ``separate`` also
measures memory without the findings.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

MODELS = [
    ("meta-llama/Llama-3.1-8B-Instruct", "L40S", 1),
    ("meta-llama/Llama-3.1-70B-Instruct", "H100-80GB", 4),
    ("Qwen/Qwen2.5-7B", "A100-80GB", 1),
    ("mistralai/Mistral-7B-v0.3", "L4", 1),
    ("google/gemma-2-9b", "A100-40GB", 1),
    ("meta-llama/Llama-3.2-1B-Instruct", "T4", 1),
]
REGIONS = [
    ("aws", "us-east-1", "p4d.24xlarge"),
    ("aws", "eu-central-1", "g6e.xlarge"),
    ("gcp", "us-central1", None),
    ("azure", "westeurope", None),
    ("on-prem", None, None),
]


def inference(rng: random.Random, n: int) -> str:
    model, gpu, count = rng.choice(MODELS)
    provider, region, _ = rng.choice(REGIONS)
    batch = rng.choice([1, 4, 16, 32, 64])
    context = rng.choice([2048, 4096, 8192, 32768])
    personal = rng.random() < 0.4
    lines = [
        "apiVersion: gpulint.dev/v1alpha1",
        "kind: Workload",
        "metadata:",
        f"  name: chat-{n}",
        "  labels:",
        f"    team: team-{n % 37}",
        "    env: prod",
        "spec:",
        "  profile: inference",
        "  model:",
        f"    id: {model}",
        f"    precision: {rng.choice(['bf16', 'bf16', 'fp8', 'int4'])}",
        "  serving:",
        "    engine: vllm",
        f"    maxBatchSize: {batch}",
        f"    maxContextTokens: {context}",
        "    gpuMemoryUtilization: 0.9",
        f"    replicas: {rng.randint(1, 4)}",
        f"    latencySensitive: {rng.choice(['true', 'false'])}",
        f"    expectedRequestsPerMinute: {rng.choice([10, 300, 3000])}",
        "  resources:",
        f"    provider: {provider}",
    ]
    if region:
        lines.append(f"    region: {region}")
    lines += [
        f"    accelerator: {{type: {gpu}, count: {count}}}",
        f"    capacity: {rng.choice(['on-demand', 'on-demand', 'spot'])}",
        f"    pool: pool-{n % 11}",
        "  lifecycle:",
        f"    scaleToZero: {rng.choice(['true', 'false'])}",
        "  data:",
        f"    personalData: {'true' if personal else 'false'}",
    ]
    if personal:
        lines += [
            "    categories: [contact details, support tickets]",
            "    residency: [EU]",
            "    lawfulBasis: contract",
            "    transparencyNotice: https://example.com/privacy",
        ]
    lines += [
        "  endpoints:",
        "    - provider: bedrock",
        f"      region: {rng.choice(['eu-central-1', 'us-east-1'])}",
        '      model: "anthropic.claude-3-5-sonnet-20240620-v1:0"',
        f"      inferenceProfile: {rng.choice(['eu', 'global', 'us'])}",
        f"      expectedRequestsPerMinute: {rng.choice([50, 500])}",
        "  justification:",
        "    selfHosting: transcripts may not leave our account",
        "  acceptableUse:",
        f"    reviewed: {rng.choice(['true', 'false'])}",
    ]
    return "\n".join(lines) + "\n"


def training(rng: random.Random, n: int, profile: str) -> str:
    model, gpu, _ = rng.choice(MODELS)
    provider, region, instance = rng.choice(REGIONS)
    spot = rng.random() < 0.6
    lines = [
        "apiVersion: gpulint.dev/v1alpha1",
        "kind: Workload",
        "metadata:",
        f"  name: {profile}-{n}",
        "  labels:",
        f"    team: team-{n % 37}",
        "  annotations:",
        f"    owner: person-{n % 101}@example.com",
        "spec:",
        f"  profile: {profile}",
        "  model:",
        f"    id: {model.removesuffix('-Instruct')}",
        "    precision: bf16",
        "  fineTuning:",
        f"    method: {rng.choice(['full', 'lora', 'qlora'])}",
        "    optimizer: adamw",
        f"    microBatchSize: {rng.choice([1, 2, 4])}",
        f"    sequenceLength: {rng.choice([2048, 4096])}",
        "    gradientCheckpointing: true",
        f"    sharding: {rng.choice(['none', 'fsdp', 'zero3'])}",
        "  resources:",
        f"    provider: {provider}",
    ]
    if region:
        lines.append(f"    region: {region}")
    if instance and provider == "aws":
        lines.append(f"    instanceType: {instance}")
    else:
        lines.append(f"    accelerator: {{type: {gpu}, count: {rng.choice([1, 4, 8])}}}")
    lines += [
        f"    nodes: {rng.choice([1, 1, 2])}",
        f"    capacity: {'spot' if spot else 'on-demand'}",
        f"    pool: pool-{n % 11}",
        "  lifecycle:",
        f"    idleShutdownMinutes: {rng.choice([15, 30, 120])}",
        f"    maxRuntimeHours: {rng.choice([12, 48])}",
    ]
    if spot and rng.random() < 0.7:
        lines += [
            "  checkpointing:",
            "    enabled: true",
            f"    uri: s3://ckpt/run-{n}/",
            f"    intervalMinutes: {rng.choice([20, 30, 90])}",
            "    resumeFromLatest: true",
        ]
    lines += ["  acceptableUse:", "    reviewed: true", "    policy: https://example.com/aup"]
    return "\n".join(lines) + "\n"


# A serving workload that fits (8B bf16 on one 48 GB L40S) and breaks no rule: only its pool and
# region vary between the --sharing sets.
SERVING = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: svc-{n}
  labels:
    team: team-{team}
spec:
  profile: inference
  model:
    id: meta-llama/Llama-3.1-8B-Instruct
    precision: bf16
  serving:
    engine: vllm
    maxBatchSize: {batch}
    maxContextTokens: {context}
    gpuMemoryUtilization: 0.9
    replicas: 1
    latencySensitive: false
    expectedRequestsPerMinute: {rpm}
  resources:
    provider: aws
    region: {region}
    instanceType: {instance}
    capacity: on-demand
    pool: {pool}
  lifecycle:
    scaleToZero: true
  data:
    personalData: false
  justification:
    selfHosting: latency close to the application
  acceptableUse:
    reviewed: true
"""
SERVING_INSTANCE = "g6e.xlarge"
# The AWS regions that offer it (linter/catalog/data/prices_instances.csv), each its own quota.
SERVING_REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "eu-central-1",
    "eu-north-1",
    "eu-south-2",
    "ap-northeast-1",
    "ap-northeast-2",
)
SERVING_QUOTA = "L-DB2E81BA"  # AWS: Running On-Demand G and VT instances


def serving(rng: random.Random, n: int, sharing: str) -> str:
    shared = sharing == "shared"
    return SERVING.format(
        n=n,
        team=n % 37,
        batch=rng.choice([16, 24, 32]),
        context=rng.choice([2048, 4096]),
        rpm=rng.choice([10, 60, 300]),
        region=SERVING_REGIONS[0 if shared else n % len(SERVING_REGIONS)],
        instance=SERVING_INSTANCE,
        pool="shared" if shared else f"pool-{n:05d}",
    )


def serving_ledger(count: int) -> str:
    """Approves what every region's workloads need, so no quota finding is raised."""
    entries = "".join(
        f"    - {{provider: aws, region: {region}, quota: {SERVING_QUOTA}, "
        f"capacity: on-demand, approved: {count * 8}}}\n"
        for region in SERVING_REGIONS
    )
    return (
        "apiVersion: gpulint.dev/v1alpha1\nkind: QuotaLedger\nmetadata:\n  name: quotas\n"
        f"spec:\n  entries:\n{entries}"
    )


LEDGER = """\
apiVersion: gpulint.dev/v1alpha1
kind: QuotaLedger
metadata:
  name: platform-quotas
spec:
  entries:
    - {provider: aws, region: us-east-1, quota: L-417A185B, capacity: on-demand, approved: 960}
    - {provider: aws, region: us-east-1, quota: L-7212CCBC, capacity: spot, approved: 960}
    - {provider: aws, region: eu-central-1, quota: L-DB2E81BA, capacity: on-demand, approved: 256}
    - {provider: gcp, region: us-central1, quota: NVIDIA_A100_GPUS, approved: 64}
    - {provider: gcp, quota: GPUS_ALL_REGIONS, approved: 128}
    - provider: bedrock
      region: eu-central-1
      model: "anthropic.claude-3-5-sonnet-20240620-v1:0"
      requestsPerMinute: 1000
      tokensPerMinute: 2000000
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-{n}
  labels: {{app: vllm-{n}}}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: vllm-{n}}}
  template:
    metadata:
      labels: {{app: vllm-{n}}}
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
          resources:
            limits:
              nvidia.com/gpu: 1
              memory: 32Gi
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("count", type=int)
    parser.add_argument("--seed", type=int, default=7)
    kinds = parser.add_mutually_exclusive_group()
    kinds.add_argument("--kubernetes", action="store_true")
    kinds.add_argument("--sharing", choices=("shared", "separate"), default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for n in range(args.count):
        folder = args.out / f"team-{n % 37:02d}"
        folder.mkdir(exist_ok=True)
        if args.kubernetes:
            text = DEPLOYMENT.format(n=n)
        elif args.sharing:
            text = serving(rng, n, args.sharing)
        else:
            kind = rng.choices(["inference", "fine-tuning", "training"], [5, 3, 1])[0]
            text = inference(rng, n) if kind == "inference" else training(rng, n, kind)
        (folder / f"workload-{n:05d}.yaml").write_text(text, encoding="utf-8")
    if args.sharing:
        ledger = serving_ledger(args.count)
        (args.out / "quota-ledger.yaml").write_text(ledger, encoding="utf-8")
    elif not args.kubernetes:
        (args.out / "quota-ledger.yaml").write_text(LEDGER, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
