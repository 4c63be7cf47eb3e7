provider "aws" {
  region = "eu-central-1"
}

locals {
  model_id = "anthropic.claude-3-5-sonnet-20241022-v2:0"
}

resource "aws_servicequotas_service_quota" "requests" {
  service_code         = "bedrock"
  quota_code           = "L-79E773B3"
  value                = 200
  wait_for_fulfillment = true
}

resource "aws_servicequotas_service_quota" "tokens" {
  service_code         = "bedrock"
  quota_code           = "L-AD41C330"
  value                = 400000
  wait_for_fulfillment = true
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
  foundation_model        = local.model_id
}

# gpulint.dev/personal-data: "true"
# gpulint.dev/residency: EU
# gpulint.dev/lawful-basis: contract
# gpulint.dev/transparency-notice: https://example.org/privacy
# gpulint.dev/processor-agreement: AWS GDPR DPA
# gpulint.dev/acceptable-use-reviewed: "true"
resource "aws_bedrock_provisioned_model_throughput" "assistant" {
  provisioned_model_name = "assistant"
  model_arn              = "arn:aws:bedrock:eu-central-1::foundation-model/${local.model_id}"
  commitment_duration    = "OneMonth"
  model_units            = 1
}
