"""Who may do what. Everyone signed in converts and sees their own jobs. Reviewers (members of
the group REVIEWERS, which holds the permission REVIEW_PERMISSION) see every job and review and
correct results; they do not own other people's documents, so only a job's owner and a
superuser delete it (issue 29). Owners correct their own documents with the review page's
editors but do not approve or reject them (issue 33). Staff (the admin site) and superusers are
separate, explicit roles: staff status alone grants no review, and no role is given by default
(issue 17).
Every "may this user..." question about jobs is answered here."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, Group, Permission

from conversion.models import Job

REVIEWERS = "Reviewers"
REVIEW_PERMISSION = "conversion.review_job"


def can_review(user: AbstractBaseUser) -> bool:
    """Reviewers and superusers: see every job, review and correct results."""
    return bool(user.is_authenticated and user.has_perm(REVIEW_PERMISSION))


def can_correct(user: AbstractBaseUser, job: Job) -> bool:
    """Correct a result (the review page's edits: structure, alt texts, page HTML, reading a
    page again): reviewers on every job, an owner on their own. Deciding (approve, reject)
    stays with reviewers: an owner's word on their own document is no review."""
    if not user.is_authenticated:
        return False
    return can_review(user) or (job.owner_id is not None and job.owner_id == user.pk)


def can_delete(user: AbstractBaseUser, job: Job) -> bool:
    """The owner and superusers; a reviewer sees and corrects every job but deletes only theirs."""
    if not user.is_authenticated:
        return False
    return bool(user.is_superuser or (job.owner_id is not None and job.owner_id == user.pk))


def reviewers_group() -> Group:
    """The group, with its permission (the migration made both; this repairs a deleted one)."""
    group, _ = Group.objects.get_or_create(name=REVIEWERS)
    app_label, codename = REVIEW_PERMISSION.split(".")
    group.permissions.add(
        Permission.objects.get(content_type__app_label=app_label, codename=codename)
    )
    return group


def user_set_roles(
    *, user: AbstractBaseUser, reviewer: bool, staff: bool = False, superuser: bool = False
) -> list[str]:
    """Give the user exactly these roles (saves it). Returns the role names it now has."""
    user.is_staff = staff or superuser  # the admin site needs staff status
    user.is_superuser = superuser
    user.save(update_fields=["is_staff", "is_superuser"])
    group = reviewers_group()
    if reviewer:
        user.groups.add(group)
    else:
        user.groups.remove(group)
    names = [name for name, on in (("reviewer", reviewer), ("staff", staff),
                                   ("superuser", superuser)) if on]  # fmt: skip
    return names or ["ordinary user"]
