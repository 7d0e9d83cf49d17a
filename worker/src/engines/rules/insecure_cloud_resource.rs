use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    let tf = Files::Terraform;
    // Inside an ingress rule: `type = "ingress"` or an `ingress {` block,
    // seen before any `egress` or the next resource.
    let (ingress, not_ingress) = (r"\bingress\b", r"\begress\b|^\s*resource\s");
    vec![
        Check::new("a public ACL", tf, r#"^\s*acl\s*=\s*"(?:public-read|public-read-write|authenticated-read)""#),
        Check::new("ingress from 0.0.0.0/0", tf, r#"^\s*cidr_blocks\s*=\s*\[[^\]]*"0\.0\.0\.0/0""#)
            .inside(ingress, not_ingress),
        Check::new("ingress from ::/0", tf, r#"^\s*ipv6_cidr_blocks\s*=\s*\[[^\]]*"::/0""#)
            .inside(ingress, not_ingress),
        Check::new("publicly_accessible = true", tf, r"^\s*publicly_accessible\s*=\s*true\b"),
        Check::new("encryption off", tf, r"^\s*(?:storage_)?encrypted\s*=\s*false\b"),
        Check::new("public access block off", tf, r"^\s*(?:block_public_acls|block_public_policy|ignore_public_acls|restrict_public_buckets)\s*=\s*false\b"),
        Check::new("Action \"*\"", tf, r#"^\s*"?(?:Action|actions)"?\s*[=:]\s*(?:\[\s*)?"\*""#),
    ]
});

fn summary(label: &str) -> String {
    format!("Cloud resource left open or unprotected ({label}).")
}

static WORDING: Wording = Wording {
    summary,
    why: "One line stands between the internet and the data: open ports and public \
          buckets are found within hours, and a wildcard policy makes any leaked \
          credential the whole account.",
    fix: "Use the narrowest CIDR that needs access, private ACLs with the public access \
          block on, encryption on, and policies that name their actions and resources.",
};

/// The `insecure-cloud-resource` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-015",
    name: "insecure-cloud-resource",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 85,
    languages: &["Terraform"],
    catches: "Flags cloud resources in Terraform left open or unprotected: a public bucket ACL, \
              an ingress rule from `0.0.0.0/0` or `::/0`, a database `publicly_accessible`, \
              storage with `encrypted = false`, an S3 public access block turned off, an IAM \
              statement allowing `Action = \"*\"`. The classes of checkov's \
              CKV_AWS_20/24/25/17/16/3/53-56/62.",
    why: "Each is one line between the internet and the data: scanners find open SSH ports and \
          public buckets within hours, and a wildcard policy turns any leaked credential into \
          the whole account.",
    example: Example {
        path: "infra/network.tf",
        code: concat!(
            "ingress {\n",
            "  from_port   = 22\n",
            "  to_port     = 22\n",
            "  protocol    = \"tcp\"\n",
            "  cidr_blocks = [\"0.0.0.0/0\"]\n",
            "}",
        ),
        context: "",
    },
    instead: "the narrowest CIDR that needs it (a VPN, a bastion), private ACLs with the public \
              access block on, encryption on, and policies naming the actions and resources \
              they need.",
};

table_rule! {
    /// The `insecure-cloud-resource` rule: [`META`].
    InsecureCloudResource {
        meta: META,
        checks: CHECKS,
        wording: WORDING,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_open_resources_and_not_egress() {
        let change = [added_file(
            "infra/main.tf",
            &[
                "resource \"aws_security_group\" \"web\" {",
                "  ingress {",
                "    cidr_blocks = [\"0.0.0.0/0\"]",
                "  }",
                "  egress {",
                "    cidr_blocks = [\"0.0.0.0/0\"]",
                "  }",
                "}",
                "resource \"aws_ebs_volume\" \"d\" {",
                "  encrypted = false",
                "}",
            ],
        )];
        let found = run(&InsecureCloudResource, &change);
        assert_eq!(cited(&found), vec![("infra/main.tf", 3), ("infra/main.tf", 10)]);
        assert_well_formed(&InsecureCloudResource, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }
}
