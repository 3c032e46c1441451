/*
 * estimate/src/hf/gemma3.c — Gemma 3 with its vision tower (model_type "gemma3").
 */
#include "reader.h"

/*
 * Gemma 3 with its vision tower (model_type "gemma3"): the language model from text_config,
 * plus SigLIP (vision_config) and the multimodal projector, stored with it and counted in
 * memory but not in the FLOPs of a text token.
 */
int ff_hf_read_gemma3(struct ff_hf_reader *r, struct ff_model *m)
{
    json_object *text = NULL, *vision = NULL;
    TRY(ff_hf_get_object(r, "text_config", &text));
    if (!text)
        return ff_hf_bad(r, "text_config", NULL, "an object (Gemma3TextConfig)");
    struct ff_hf_reader t = ff_hf_sub_reader(r, text, "text_config.");
    t.model_type = "gemma3_text";
    TRY(ff_hf_read_llama_like(&t, m));
    TRY(ff_hf_get_object(r, "vision_config", &vision));
    if (!vision)
        return ff_hf_bad(r, "vision_config", NULL, "an object (SiglipVisionConfig)");
    struct ff_hf_reader v = ff_hf_sub_reader(r, vision, "vision_config.");
    TRY(ff_hf_require_string(&v, "model_type", "siglip_vision_model"));
    bool head = false;
    TRY(ff_hf_get_bool(&v, "vision_use_head", false, &head));
    if (head)
        return ff_hf_bad(&v, "vision_use_head", ff_hf_lookup(&v, "vision_use_head"), "false");
    int64_t hv, iv, lv, patch, image, ch;
    TRY(ff_hf_get_int(&v, "hidden_size", false, 768, 1, &hv));
    TRY(ff_hf_get_int(&v, "intermediate_size", false, 3072, 1, &iv));
    TRY(ff_hf_get_layers(&v, "num_hidden_layers", false, 12, &lv));
    TRY(ff_hf_get_int(&v, "patch_size", false, 16, 1, &patch));
    TRY(ff_hf_get_int(&v, "image_size", false, 224, 1, &image));
    TRY(ff_hf_get_int(&v, "num_channels", false, 3, 1, &ch));
    if (image % patch != 0 || hv > ((int64_t)1 << 20) || iv > ((int64_t)1 << 20) || lv > 4096 ||
        image > ((int64_t)1 << 16) || ch > 64)
        return ff_hf_bad(&v, "image_size", ff_hf_lookup(&v, "image_size"),
                         "a multiple of patch_size, and sizes a vision tower can have");
    double H = (double)hv, I = (double)iv, grid = (double)(image / patch);
    /* SiglipVisionEmbeddings: patch conv (with bias) and learned positions; per layer
     * q/k/v/o with biases, fc1/fc2 with biases, two LayerNorms; post_layernorm. */
    double siglip = (double)ch * (double)patch * (double)patch * H + H + grid * grid * H +
                    (double)lv * (4.0 * (H * H + H) + 2.0 * H * I + I + H + 4.0 * H) + 2.0 * H;
    /* Gemma3MultiModalProjector: mm_input_projection_weight (vision x text) and an RMSNorm. */
    double proj = H * (double)m->hidden + H;
    m->encoder_params = (int64_t)(siglip + proj);
    return FF_OK;
}
