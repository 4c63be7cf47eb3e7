# An assistant for EU customers whose agent calls a US cross-region inference profile, next to
# Provisioned Throughput bought in a US region.
provider "aws" {
  region = "eu-central-1"
}

locals {
  model_id = "anthropic.claude-3-5-sonnet-20241022-v2:0"
}

# gpulint.dev/personal-data: "true"
# gpulint.dev/residency: EU
# gpulint.dev/lawful-basis: contract
# gpulint.dev/transparency-notice: https://example.org/privacy
# gpulint.dev/processor-agreement: AWS GDPR DPA
# gpulint.dev/acceptable-use-reviewed: "true"
resource "aws_bedrockagent_agent" "assistant" {
  agent_name              = "assistant"
  agent_resource_role_arn = aws_iam_role.agent.arn
  foundation_model        = "us.${local.model_id}" # expect: GL401, GL305
}

# gpulint.dev/personal-data: "true"
# gpulint.dev/residency: EU
# gpulint.dev/lawful-basis: contract
# gpulint.dev/transparency-notice: https://example.org/privacy
# gpulint.dev/processor-agreement: AWS GDPR DPA
# gpulint.dev/acceptable-use-reviewed: "true"
resource "aws_bedrock_provisioned_model_throughput" "assistant" {
  provisioned_model_name = "assistant"
  model_arn              = "arn:aws:bedrock:us-east-1::foundation-model/${local.model_id}" # expect: GL401
  commitment_duration    = "OneMonth"
  model_units            = 1
}
